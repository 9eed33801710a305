/**
 * Answers queries over other documents from documents in memory: a rule test's `documents`. Matches as Paperless's
 * list filters do: text case-insensitively (`iexact`, `icontains`…), names case-insensitively, a custom field's
 * `equals` exactly, and for max/min only documents that have the field.
 */
import type { CustomFieldValue, RuleDocument, Scalar } from './model.js';
import {
  MAX_QUERY_RESULTS,
  type QueryAnswer,
  type QueryFilter,
  type QueryQuestion,
  type QuerySource,
} from './document-queries.js';
import { isMoneyValue, parseNumber } from './parse-number.js';

export function localQuerySource(documents: readonly RuleDocument[]): QuerySource {
  return { answer: (q) => answerLocally(q, documents) };
}

export function answerLocally(q: QueryQuestion, documents: readonly RuleDocument[]): QueryAnswer {
  const matching = documents.filter((d) => d.id !== q.exclude && matchesQuestion(d, q));
  const sign = q.order.descending ? -1 : 1;
  matching.sort((a, b) => sign * compare(read(a, q.order.field), read(b, q.order.field)) || a.id - b.id);
  return {
    total: matching.length,
    documents: matching
      .slice(0, MAX_QUERY_RESULTS)
      .map((d) => ({ id: d.id, title: d.title, value: read(d, q.order.field) })),
  };
}

/** Whether the document is one the question asks about (its own id aside). */
export function matchesQuestion(d: RuleDocument, q: QueryQuestion): boolean {
  return q.where.every((f) => matches(d, f)) && (!q.order.present || present(read(d, q.order.field)));
}

/**
 * Whether `matchesQuestion` surely says what the dms would: not for content (a run may hold it shortened), nor
 * for free text outside ASCII, which SQLite folds differently from PostgreSQL and from JavaScript. Names of
 * tags, correspondents, types and paths come from the dms's own list, so they compare alike.
 */
export function surelyMatchedAlike(d: RuleDocument, q: QueryQuestion): boolean {
  const ascii = (v: unknown) => /^[\x20-\x7e]*$/.test(JSON.stringify(v ?? null));
  return q.where.every(
    (f) => NAMED.has(f.field) || (f.field !== 'content' && ascii(f.value) && ascii(read(d, f.field))),
  );
}

const NAMED = new Set(['correspondent', 'document_type', 'storage_path', 'tags']);

function read(d: RuleDocument, field: string): CustomFieldValue {
  if (field.startsWith('custom_fields.')) {
    const name = field.slice('custom_fields.'.length);
    return Object.prototype.hasOwnProperty.call(d.custom_fields, name) ? d.custom_fields[name] : null;
  }
  const v = (d as unknown as Record<string, unknown>)[field];
  return v === undefined ? null : (v as CustomFieldValue);
}

function present(v: CustomFieldValue): boolean {
  return v !== null && v !== undefined && v !== '';
}

function sortable(v: CustomFieldValue): number | string | null {
  if (v === null || v === undefined) return null;
  if (isMoneyValue(v)) return v.amount;
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (Array.isArray(v)) return v.join(',');
  return v;
}

function compare(a: CustomFieldValue, b: CustomFieldValue): number {
  const x = sortable(a);
  const y = sortable(b);
  if (x === y) return 0;
  if (x === null) return 1;
  if (y === null) return -1;
  return x < y ? -1 : 1;
}

const lower = (v: unknown) => String(v ?? '').toLocaleLowerCase();
const list = (v: Scalar | Scalar[]) => (Array.isArray(v) ? v : [v]);

function matches(d: RuleDocument, f: QueryFilter): boolean {
  const own = read(d, f.field);
  if (f.field === 'tags') {
    const tags = new Set(d.tags.map(lower));
    const wanted = list(f.value).map(lower);
    if (f.op === 'all') return wanted.every((t) => tags.has(t));
    if (f.op === 'any') return wanted.some((t) => tags.has(t));
    return !wanted.some((t) => tags.has(t));
  }
  if (f.op === 'exists') {
    const has = f.field.startsWith('custom_fields.')
      ? Object.prototype.hasOwnProperty.call(d.custom_fields, f.field.slice('custom_fields.'.length))
      : present(own);
    return has === f.value;
  }
  const custom = f.field.startsWith('custom_fields.');
  switch (f.op) {
    case 'equals':
      if (f.value === null) return own === null;
      return custom ? sameValue(own, f.value as Scalar) : lower(own) === lower(f.value);
    case 'in':
      return list(f.value).some((v) => (custom ? sameValue(own, v) : lower(own) === lower(v)));
    case 'contains':
      if (Array.isArray(own)) return own.includes(Number(f.value));
      return own !== null && lower(own).includes(lower(f.value));
    case 'starts_with':
      return own !== null && lower(own).startsWith(lower(f.value));
    case 'ends_with':
      return own !== null && lower(own).endsWith(lower(f.value));
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const x = sortable(own);
      if (x === null) return false;
      let c: number;
      if (typeof x === 'number') {
        const y = parseNumber(String(f.value));
        if (y === null) return false;
        c = x < y ? -1 : x > y ? 1 : 0;
      } else c = x.slice(0, 10).localeCompare(String(f.value));
      return f.op === 'gt' ? c > 0 : f.op === 'gte' ? c >= 0 : f.op === 'lt' ? c < 0 : c <= 0;
    }
    default:
      return false;
  }
}

function sameValue(own: CustomFieldValue, want: Scalar): boolean {
  if (own === null || want === null) return own === want;
  if (isMoneyValue(own) || typeof own === 'number') {
    const n = typeof want === 'number' ? want : parseNumber(String(want));
    return n !== null && sortable(own) === n;
  }
  return String(own) === String(want);
}
