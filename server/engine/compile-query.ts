/** Compiles a `query:` extraction: what it asks, checked at save against what the dms's filters can answer. */
import type { ExtractionType, QueryKind, Scalar } from './model.js';
import { QUERY_ORDER_FIELDS } from './rule-schema.js';
import { RuleCompileError, TemplateError, type RulePath } from './rule-errors.js';
import { compileTemplate, type CompiledTemplate } from './templates.js';
import { checkTemplateVariables, type KnownValues } from './template-variables.js';
import {
  QUERY_CUSTOM_FIELD_OPERATORS,
  QUERY_FIELDS,
  QUERY_KINDS,
  isTemplateValue,
  type CompiledFilter,
  type CompiledQuery,
  type QueryOperator,
} from './document-queries.js';

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
