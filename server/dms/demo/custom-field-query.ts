import type { SimStore } from './store.js';
import type { SimDocument, SimObject } from './sim-types.js';

// `custom_field_query` (§4.4): [field, op, value], ["AND"|"OR", [q…]], ["NOT", q]; field by id or name.

type Test = (doc: SimDocument) => boolean;
const MAX_DEPTH = 10;
const MAX_CONDITIONS = 20;

class QueryError extends Error {
  constructor(readonly body: unknown) {
    super('invalid custom_field_query');
  }
}

function comparable(field: SimObject, value: unknown): number | string | null {
  if (value === null || value === undefined) return null;
  if (field.data_type === 'monetary') {
    const match = /^[A-Z]{0,3}(-?\d+(?:\.\d+)?)$/.exec(String(value));
    return match ? Number(match[1]) : null;
  }
  if (field.data_type === 'integer' || field.data_type === 'float') return Number(value);
  return String(value);
}

function condition(store: SimStore, query: unknown[], counter: { n: number }): Test {
  const [ref, op, value] = query;
  if (++counter.n > MAX_CONDITIONS) throw new QueryError(['Maximum number of query conditions exceeded.']);
  const field = store.objects.custom_fields.find((f) => (typeof ref === 'number' ? f.id === ref : f.name === ref));
  if (!field) throw new QueryError({ '0': [`'${String(ref)}' is not a valid custom field.`] });
  const raw = (doc: SimDocument) => doc.custom_fields.find((cf) => cf.field === field.id);
  const options = (field.extra_data as { select_options?: Array<{ id: string; label: string }> })?.select_options ?? [];
  // A select compares by option id; a label is accepted too.
  const want = (v: unknown): number | string | null =>
    field.data_type === 'select'
      ? (options.find((o) => o.label === v)?.id ?? comparable(field, v))
      : comparable(field, v);
  const text = (doc: SimDocument) => String(raw(doc)?.value ?? '').toLowerCase();
  switch (op) {
    case 'exists':
      return (doc) => (raw(doc) !== undefined) === Boolean(value);
    case 'isnull':
      return (doc) => (raw(doc) === undefined || raw(doc)?.value === null) === Boolean(value);
    case 'exact':
      return (doc) => raw(doc) !== undefined && comparable(field, raw(doc)?.value) === want(value);
    case 'in':
      return (doc) => Array.isArray(value) && value.map(want).includes(comparable(field, raw(doc)?.value));
    case 'icontains':
      return (doc) => text(doc).includes(String(value).toLowerCase());
    case 'istartswith':
      return (doc) => text(doc).startsWith(String(value).toLowerCase());
    case 'iendswith':
      return (doc) => text(doc).endsWith(String(value).toLowerCase());
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const bound = want(value);
      return (doc) => {
        const own = comparable(field, raw(doc)?.value);
        if (own === null || bound === null) return false;
        return op === 'gt' ? own > bound : op === 'gte' ? own >= bound : op === 'lt' ? own < bound : own <= bound;
      };
    }
    case 'range': {
      const [low, high] = Array.isArray(value) ? value.map(want) : [null, null];
      return (doc) => {
        const own = comparable(field, raw(doc)?.value);
        return own !== null && low !== null && high !== null && own >= low && own <= high;
      };
    }
    case 'contains':
      return (doc) =>
        Array.isArray(raw(doc)?.value) &&
        (Array.isArray(value) ? value : [value]).every((v) => (raw(doc)?.value as unknown[]).includes(v));
    default:
      throw new QueryError({ '1': [`'${String(op)}' is not a valid operator.`] });
  }
}

function compile(store: SimStore, query: unknown, depth: number, counter: { n: number }): Test {
  if (depth > MAX_DEPTH) throw new QueryError(['Maximum nesting depth exceeded.']);
  if (!Array.isArray(query)) throw new QueryError(['Invalid custom field query expression']);
  const head = typeof query[0] === 'string' ? query[0].toUpperCase() : null;
  if ((head === 'AND' || head === 'OR') && query.length === 2 && Array.isArray(query[1])) {
    const parts = (query[1] as unknown[]).map((q) => compile(store, q, depth + 1, counter));
    return head === 'AND' ? (doc) => parts.every((p) => p(doc)) : (doc) => parts.some((p) => p(doc));
  }
  if (head === 'NOT' && query.length === 2) {
    const inner = compile(store, query[1], depth + 1, counter);
    return (doc) => !inner(doc);
  }
  if (query.length === 3) return condition(store, query, counter);
  throw new QueryError(['Invalid custom field query expression']);
}

/** A predicate for the query, or the 400 body Paperless answers. */
export function compileCustomFieldQuery(store: SimStore, raw: string): { test?: Test; error?: unknown } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return { error: ['Value must be valid JSON.'] };
  }
  try {
    return { test: compile(store, parsed, 0, { n: 0 }) };
  } catch (err) {
    if (err instanceof QueryError) return { error: err.body };
    throw err;
  }
}
