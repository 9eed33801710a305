/**
 * Queries over other documents: `extract: { n: { query: count, where: { correspondent: "{{ doc.correspondent }}" } } }`.
 * The engine says what it wants to know as a QueryQuestion in names; an injected QuerySource answers it (the dms
 * through the run layer, or a rule test's `documents`). The engine never waits: a question without an answer ends
 * the evaluation with `pendingQuery`, and the caller evaluates again once it has the answer. So evaluation stays
 * synchronous and pure, in worker threads too (the worker returns the question, the main thread asks the dms).
 */
import type { CustomFieldValue, ExtractionType, QueryKind, RuleDocument, Scalar } from './model.js';
import { QUERY_KIND_NAMES, QUERY_ORDER_FIELDS, type QUERY_WHERE_FIELDS } from './rule-schema.js';
import { RuleCompileError, TemplateError, type RulePath } from './errors.js';
import { compileTemplate, renderTemplate, type CompiledTemplate } from './templates.js';
import { checkTemplateVariables, type KnownValues } from './template-variables.js';
import { resolveRelativeDate, parseDate } from './parse-date.js';
import { isMoneyValue, parseInteger, parseNumber } from './parse-number.js';
import { describeValue } from './describe.js';

/** What a query reads from the matching documents. */
export const QUERY_KINDS = QUERY_KIND_NAMES;

export const QUERY_OPERATORS = [
  'equals',
  'in',
  'contains',
  'starts_with',
  'ends_with',
  'gt',
  'gte',
  'lt',
  'lte',
  'exists',
  'any',
  'all',
  'none',
] as const;
export type QueryOperator = (typeof QUERY_OPERATORS)[number];

const COMPARE = ['gt', 'gte', 'lt', 'lte'] as const;
/** The fields a query may test and the operators the dms's list filters answer for each (a superset is never sent). */
export const QUERY_FIELDS: Record<(typeof QUERY_WHERE_FIELDS)[number], readonly QueryOperator[]> = {
  title: ['equals', 'contains', 'starts_with', 'ends_with'],
  content: ['contains'],
  correspondent: ['equals', 'in'],
  document_type: ['equals', 'in'],
  storage_path: ['equals', 'in'],
  tags: ['any', 'all', 'none'],
  archive_serial_number: ['equals', ...COMPARE, 'exists'],
  created: ['equals', ...COMPARE],
  added: COMPARE,
};
export const QUERY_CUSTOM_FIELD_OPERATORS: readonly QueryOperator[] = [
  'equals',
  'in',
  'contains',
  'starts_with',
  'ends_with',
  ...COMPARE,
  'exists',
];

/** At most this many matching documents are read per query (`ids` lists at most these; `count` is the dms's total). */
export const MAX_QUERY_RESULTS = 25;

/** One test of a question, values rendered: names for relations and tags, ISO dates, numbers for the ASN. */
export interface QueryFilter {
  field: string;
  op: QueryOperator;
  value: Scalar | Scalar[];
}

/** What the engine asks: documents matching every filter, sorted, the asking document left out. */
export interface QueryQuestion {
  where: QueryFilter[];
  /** `created` (ties by id) for count/ids/first/last; the field read for max/min, whose documents must have it. */
  order: { field: string; descending: boolean; present: boolean };
  /** The document asking: never among the answers ("other documents"). */
  exclude: number;
}

export interface QueryAnswerDocument {
  id: number;
  title: string;
  /** The value of the question's order field. */
  value: CustomFieldValue;
}

export type QueryAnswer =
  | {
      /** Matching documents besides the asking one. */
      total: number;
      /** The first ones in the question's order, at most MAX_QUERY_RESULTS. */
      documents: QueryAnswerDocument[];
      /** Answered from the run's cache, without asking the dms again. */
      cached?: boolean;
      /** Why nothing was asked, e.g. a name the dms does not have. */
      note?: string;
    }
  | { error: string };

/** Answers questions it can answer now; undefined means "not yet" (the evaluation then ends with `pendingQuery`). */
export interface QuerySource {
  answer(question: QueryQuestion): QueryAnswer | undefined;
}

/** The key of a question, for answers sent along with a document (to a worker, between evaluation rounds). */
export function questionKey(q: QueryQuestion): string {
  return JSON.stringify([q.where, q.order, q.exclude]);
}

/** Answers from a map of earlier answers by question key (what a run collected so far). */
export function answersSource(answers: Readonly<Record<string, QueryAnswer>>): QuerySource {
  return { answer: (q) => answers[questionKey(q)] };
}

/** Thrown through the evaluation when a question has no answer yet. */
export class QueryPending extends Error {
  constructor(readonly question: QueryQuestion) {
    super('a query over other documents is waiting for its answer');
    this.name = 'QueryPending';
  }
}

interface CompiledFilter {
  field: string;
  op: QueryOperator;
  /** Literal scalars or templates; a list for in/any/all/none. */
  values: Array<Scalar | CompiledTemplate>;
  list: boolean;
}

export interface CompiledQuery {
  kind: QueryKind;
  /** max/min: the field read. */
  field: string | null;
  where: CompiledFilter[];
  /** The free names its where templates read (so a missing extracted value means "no value", not an error). */
  globals: string[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const LIST_OPERATORS: ReadonlySet<QueryOperator> = new Set(['in', 'any', 'all', 'none']);

function operatorsOf(field: string): readonly QueryOperator[] | undefined {
  return field.startsWith('custom_fields.') && field.length > 'custom_fields.'.length
    ? QUERY_CUSTOM_FIELD_OPERATORS
    : (QUERY_FIELDS as Record<string, readonly QueryOperator[] | undefined>)[field];
}

/** The type a query's value has; `type` may choose only for max/min of a custom field. */
export function queryValueType(
  kind: QueryKind,
  field: string | null,
  type: ExtractionType | undefined,
  path: RulePath,
): ExtractionType {
  const custom = field?.startsWith('custom_fields.') === true;
  if (type !== undefined && !((kind === 'max' || kind === 'min') && custom))
    throw new RuleCompileError(
      [...path, 'type'],
      'a query decides its own type (count, ids, first and last are document ids or numbers); type applies only to max/min of a custom field',
    );
  if (kind === 'max' || kind === 'min') {
    if (custom) return type ?? 'number';
    return field === 'archive_serial_number' ? 'int' : 'date';
  }
  return 'int';
}

/** Checks `query`, `field` and `where` of an extraction; templates may read doc and the values extracted before. */
export function compileQuery(
  e: { query?: unknown; field?: unknown; where?: unknown },
  path: RulePath,
  earlier: KnownValues,
): CompiledQuery {
  const kind = e.query as QueryKind;
  if (!(QUERY_KINDS as readonly string[]).includes(kind))
    throw new RuleCompileError([...path, 'query'], `query is one of ${QUERY_KINDS.join(', ')}`);
  let field: string | null = null;
  if (kind === 'max' || kind === 'min') {
    if (typeof e.field !== 'string')
      throw new RuleCompileError(
        path,
        `query: ${kind} needs field: the field to read (archive_serial_number, created, added or custom_fields.<name>)`,
      );
    const ok = (QUERY_ORDER_FIELDS as readonly string[]).includes(e.field) || /^custom_fields\..+/.test(e.field);
    if (!ok)
      throw new RuleCompileError(
        [...path, 'field'],
        `the dms can sort by archive_serial_number, created, added or custom_fields.<name>, not "${e.field}"`,
      );
    field = e.field;
  } else if (e.field !== undefined) {
    throw new RuleCompileError([...path, 'field'], `field applies only to query: max or min`);
  }
  const where: CompiledFilter[] = [];
  if (e.where !== undefined && e.where !== null) {
    if (!isObject(e.where))
      throw new RuleCompileError(
        [...path, 'where'],
        'where maps fields to values, e.g. { correspondent: "{{ doc.correspondent }}" }',
      );
    for (const [name, test] of Object.entries(e.where))
      where.push(...compileFilters(name, test, [...path, 'where', name], earlier));
  }
  const globals = new Set(where.flatMap((f) => f.values.flatMap((v) => (isTemplateValue(v) ? v.globals : []))));
  return { kind, field, where, globals: [...globals] };
}

function compileFilters(field: string, test: unknown, path: RulePath, earlier: KnownValues): CompiledFilter[] {
  const allowed = operatorsOf(field);
  if (!allowed)
    throw new RuleCompileError(
      path,
      `a query cannot test "${field}"; the dms filters ${Object.keys(QUERY_FIELDS).join(', ')} and custom_fields.<name>`,
    );
  const tests: Array<[QueryOperator, unknown]> = isObject(test)
    ? Object.entries(test).map(([op, v]) => [op as QueryOperator, v])
    : [[field === 'tags' ? 'all' : 'equals', test]];
  if (tests.length === 0) throw new RuleCompileError(path, 'give an operator, e.g. { equals: … }');
  return tests.map(([op, value]) => {
    const at = isObject(test) ? [...path, op] : path;
    if (!allowed.includes(op))
      throw new RuleCompileError(
        at,
        `the dms cannot answer "${op}" for ${field} in a query; it can: ${allowed.join(', ')}`,
      );
    const list = LIST_OPERATORS.has(op);
    const raw = Array.isArray(value) ? value : [value];
    if (op === 'exists') {
      if (typeof value !== 'boolean') throw new RuleCompileError(at, 'exists is true or false');
      return { field, op, values: [value], list: false };
    }
    if (!list && Array.isArray(value)) throw new RuleCompileError(at, `${op} takes one value, not a list`);
    if (raw.length === 0) throw new RuleCompileError(at, `${op} needs at least one value`);
    const values = raw.map((v, i): Scalar | CompiledTemplate => {
      const here = Array.isArray(value) ? [...at, i] : at;
      if (v === null) {
        if (op === 'equals' && (field === 'correspondent' || field === 'document_type' || field === 'storage_path'))
          return null;
        throw new RuleCompileError(
          here,
          `null is allowed only as "${field === 'tags' ? 'no' : 'equals'}" of correspondent, document_type and storage_path`,
        );
      }
      if (typeof v === 'number' || typeof v === 'boolean') return v;
      if (typeof v !== 'string')
        throw new RuleCompileError(here, 'a value is text (templates allowed), a number or true/false');
      try {
        const t = compileTemplate(v, here);
        if (t.literal) return v;
        checkTemplateVariables(t, earlier, here);
        return t;
      } catch (err) {
        if (err instanceof TemplateError) throw new RuleCompileError(err.path, err.message);
        throw err;
      }
    });
    return { field, op, values, list };
  });
}

export interface QueryOutcome {
  /** undefined: no value (a where value rendered empty, or no document to read). */
  value: ExtractedQueryValue | undefined;
  detail: string;
}
type ExtractedQueryValue = number | string | boolean | number[] | { amount: number; currency: string | null } | null;

/**
 * Runs one query extraction: renders the where values, asks the source, reads the answer. Throws QueryPending
 * when the source has no answer yet, and an Error when the source failed (a trace error, never a quiet value).
 */
export function runQuery(
  q: CompiledQuery,
  type: ExtractionType,
  path: RulePath,
  doc: RuleDocument,
  scope: Record<string, unknown>,
  now: Date,
  source: QuerySource | undefined,
): QueryOutcome {
  const where: QueryFilter[] = [];
  for (const f of q.where) {
    const values: Scalar[] = [];
    for (const [i, v] of f.values.entries()) {
      const at = [...path, 'where', f.field, ...(f.op === 'equals' ? [] : [f.op]), ...(f.list ? [i] : [])];
      const text = isTemplateValue(v) ? renderTemplate(v, scope, at).trim() : v;
      if (text === '')
        return { value: undefined, detail: `${f.field} ${f.op} rendered empty, so nothing was asked (no value)` };
      values.push(normalise(f, text, now, at));
    }
    where.push({ field: f.field, op: f.op, value: f.list ? values : values[0] });
  }
  const order =
    q.field !== null
      ? { field: q.field, descending: q.kind === 'max', present: true }
      : { field: 'created', descending: q.kind === 'last', present: false };
  const question: QueryQuestion = { where, order, exclude: doc.id };
  if (!source) throw new Error('queries over other documents cannot be answered here');
  const answer = source.answer(question);
  if (answer === undefined) throw new QueryPending(question);
  const asked = `${q.kind}${q.field ? ` ${q.field}` : ''} of other documents${where.length ? ` where ${where.map(describeFilter).join(' and ')}` : ''}`;
  if ('error' in answer) throw new Error(`query ${asked} failed: ${answer.error}`);
  const found = `${answer.total.toLocaleString('en-US')} found${answer.cached ? ', answer reused within this run' : ''}${answer.note ? `: ${answer.note}` : ''}`;
  const first = answer.documents[0];
  let value: ExtractedQueryValue | undefined;
  if (q.kind === 'count') value = answer.total;
  else if (q.kind === 'ids') value = answer.documents.length > 0 ? answer.documents.map((d) => d.id) : undefined;
  else if (q.kind === 'first' || q.kind === 'last') value = first?.id;
  else value = first === undefined ? undefined : typedValue(first.value, type);
  const shown =
    value === undefined
      ? 'no value'
      : q.kind === 'ids' && answer.total > answer.documents.length
        ? `${describeValue(value)} (the first ${answer.documents.length})`
        : (q.kind === 'first' || q.kind === 'last') && first
          ? `${first.id} ("${first.title.slice(0, 60)}")`
          : describeValue(value);
  return { value, detail: `${asked} → ${shown} (${found})` };
}

function isTemplateValue(v: Scalar | CompiledTemplate): v is CompiledTemplate {
  return typeof v === 'object' && v !== null;
}

function describeFilter(f: QueryFilter): string {
  const v = Array.isArray(f.value) ? `[${f.value.map((x) => describeValue(x)).join(', ')}]` : describeValue(f.value);
  return f.op === 'equals' ? `${f.field} = ${v}` : `${f.field} ${f.op} ${v}`;
}

/** Dates as ISO days (relative dates from the run's clock), ASN as an integer; the rest as written. */
function normalise(f: CompiledFilter, v: Scalar, now: Date, at: RulePath): Scalar {
  if (v === null || typeof v === 'boolean') return v;
  if (f.field === 'created' || f.field === 'added') {
    const s = String(v);
    const iso = resolveRelativeDate(s, now) ?? (s === 'today' ? now.toISOString().slice(0, 10) : parseDate(s));
    if (!iso) throw new TemplateError(at, `${f.field}: "${s.slice(0, 60)}" is not a date (yyyy-MM-dd or -30d)`);
    return iso;
  }
  if (f.field === 'archive_serial_number') {
    const n = typeof v === 'number' ? v : parseInteger(v);
    if (n === null || !Number.isInteger(n) || n < 0)
      throw new TemplateError(at, `archive_serial_number: "${String(v).slice(0, 60)}" is not a whole number`);
    return n;
  }
  return v;
}

function typedValue(v: CustomFieldValue, type: ExtractionType): ExtractedQueryValue | undefined {
  if (v === null || v === undefined) return undefined;
  if (isMoneyValue(v)) return type === 'money' ? v : v.amount;
  if (Array.isArray(v)) return v;
  if (type === 'int' || type === 'number') {
    const n = typeof v === 'number' ? v : parseNumber(String(v));
    return n === null ? undefined : n;
  }
  if (type === 'money') return typeof v === 'number' ? { amount: v, currency: null } : undefined;
  if (type === 'bool') return typeof v === 'boolean' ? v : undefined;
  return String(v);
}
