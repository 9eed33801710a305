/** Runs a compiled query: renders its where values, asks the source, reads the answer into a typed value. */
import type { CustomFieldValue, ExtractionType, RuleDocument, Scalar } from './model.js';
import { TemplateError, type RulePath } from './rule-errors.js';
import { renderTemplate } from './templates.js';
import { resolveRelativeDate, parseDate } from './parse-date.js';
import { isMoneyValue, parseInteger, parseNumber } from './parse-number.js';
import { describeValue } from './describe.js';
import {
  QueryPending,
  isTemplateValue,
  type CompiledFilter,
  type CompiledQuery,
  type QueryFilter,
  type QueryQuestion,
  type QuerySource,
} from './document-queries.js';

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
