import type { FindDocumentsQuery } from '../../dms/types.js';
import type { VocabularyIndex, VocabularyKind } from '../../dms/vocabulary-index.js';
import type { QueryFilter, QueryQuestion } from '../../engine/document-queries.js';
import type { Scalar } from '../../engine/model.js';

/**
 * A question about other documents as one Paperless list request (filters.py, v2.18 and v3.0 alike): names become
 * ids from the vocabulary, custom fields a `custom_field_query`, max/min an `ordering` with the field required to
 * be present (PostgreSQL sorts NULLs first when descending, so `-archive_serial_number` would name a document
 * without one). `none`: a name the dms does not have, so nothing can match and nothing need be asked.
 */
export type QueryRequest =
  | { kind: 'ask'; query: Omit<FindDocumentsQuery, 'pageSize' | 'fields'> }
  | { kind: 'none'; why: string }
  | { kind: 'error'; error: string };

const RELATIONS: Record<string, VocabularyKind> = {
  correspondent: 'correspondents',
  document_type: 'document_types',
  storage_path: 'storage_paths',
};
const LOOKUPS: Record<string, string> = {
  equals: 'iexact',
  contains: 'icontains',
  starts_with: 'istartswith',
  ends_with: 'iendswith',
};
const DATE_PARAMS: Record<string, string> = { created: 'created', added: 'added__date' };
const ORDER_PARAMS: Record<string, string> = {
  archive_serial_number: 'archive_serial_number',
  created: 'created',
  added: 'added',
};

class Unanswerable extends Error {}
class NoneMatch extends Error {}

const list = (v: Scalar | Scalar[]): Scalar[] => (Array.isArray(v) ? v : [v]);

export function queryRequest(q: QueryQuestion, index: VocabularyIndex): QueryRequest {
  const filters: Record<string, string> = {};
  const custom: unknown[] = [];
  try {
    for (const f of q.where) addFilter(filters, custom, f, index);
    let ordering: string;
    if (q.order.field.startsWith('custom_fields.')) {
      const field = customField(q.order.field, index);
      ordering = `custom_field_${field.id}`;
      custom.push([field.id, 'isnull', false]);
    } else {
      ordering = ORDER_PARAMS[q.order.field];
      if (!ordering) return { kind: 'error', error: `the dms cannot sort by ${q.order.field}` };
      if (q.order.present && q.order.field === 'archive_serial_number') filters.archive_serial_number__isnull = 'false';
    }
    if (custom.length === 1) filters.custom_field_query = JSON.stringify(custom[0]);
    else if (custom.length > 1) filters.custom_field_query = JSON.stringify(['AND', custom]);
    const sign = q.order.descending ? '-' : '';
    // Ties are broken by id so an answer never depends on the database's row order; not for a custom field:
    // Paperless reads the field id as everything after `custom_field_` ("5,-id" is no number: a 500).
    const tieBreak = ordering.startsWith('custom_field_') ? '' : `,${sign}id`;
    return { kind: 'ask', query: { filters, ordering: `${sign}${ordering}${tieBreak}` } };
  } catch (err) {
    if (err instanceof NoneMatch) return { kind: 'none', why: err.message };
    if (err instanceof Unanswerable) return { kind: 'error', error: err.message };
    throw err;
  }
}

function addFilter(filters: Record<string, string>, custom: unknown[], f: QueryFilter, index: VocabularyIndex): void {
  if (f.field.startsWith('custom_fields.')) return void custom.push(customCondition(f, index));
  if (f.field in RELATIONS) {
    const names = list(f.value);
    if (f.op === 'equals' && f.value === null) return void (filters[`${f.field}__isnull`] = 'true');
    const ids = names.map((n) => index.idOf(RELATIONS[f.field], String(n))).filter((id) => id !== undefined);
    if (ids.length === 0)
      throw new NoneMatch(
        `the dms has no ${f.field.replace('_', ' ')} ${names.map((n) => `"${String(n)}"`).join(' or ')}`,
      );
    filters[`${f.field}__id__in`] = ids.join(',');
    return;
  }
  if (f.field === 'tags') {
    const names = list(f.value).map(String);
    const ids = names.map((n) => index.idOf('tags', n));
    if (f.op === 'all' && ids.some((id) => id === undefined))
      throw new NoneMatch(
        `the dms has no tag ${names
          .filter((_, i) => ids[i] === undefined)
          .map((n) => `"${n}"`)
          .join(', ')}`,
      );
    const known = ids.filter((id): id is number => id !== undefined);
    if (f.op === 'any' && known.length === 0) throw new NoneMatch(`the dms has none of the tags ${names.join(', ')}`);
    // "none of" unknown tags holds for every document: no filter.
    if (known.length > 0) filters[`tags__id__${f.op === 'any' ? 'in' : f.op}`] = known.join(',');
    return;
  }
  if (f.field === 'title' || f.field === 'content') {
    filters[`${f.field}__${LOOKUPS[f.op]}`] = String(f.value);
    return;
  }
  if (f.field === 'archive_serial_number') {
    if (f.op === 'exists') filters.archive_serial_number__isnull = f.value === true ? 'false' : 'true';
    else filters[f.op === 'equals' ? 'archive_serial_number' : `archive_serial_number__${f.op}`] = String(f.value);
    return;
  }
  const param = DATE_PARAMS[f.field];
  if (param) {
    const day = String(f.value);
    if (f.op === 'equals') {
      filters[`${param}__gte`] = day;
      filters[`${param}__lte`] = day;
    } else filters[`${param}__${f.op}`] = day;
    return;
  }
  throw new Unanswerable(`a query cannot filter ${f.field}`);
}

function customField(name: string, index: VocabularyIndex) {
  const field = index.field(name.slice('custom_fields.'.length));
  if (!field) throw new Unanswerable(`the dms has no custom field "${name.slice('custom_fields.'.length)}"`);
  return field;
}

/** One `custom_field_query` atom, with the value in the form Paperless compares for the field's type. */
function customCondition(f: QueryFilter, index: VocabularyIndex): unknown[] {
  const field = customField(f.field, index);
  const type = field.data_type;
  if (f.op === 'exists') return [field.id, 'exists', f.value === true];
  const value = (v: Scalar): unknown => {
    if (type === 'integer' || type === 'float' || type === 'monetary') {
      const n = typeof v === 'number' ? v : Number(String(v).replace(/^[A-Z]{3}/, ''));
      if (!Number.isFinite(n)) throw new Unanswerable(`${f.field}: ${JSON.stringify(v)} is not a number`);
      return n;
    }
    if (type === 'boolean') return v === true || String(v).toLowerCase() === 'true';
    if (type === 'select') {
      const option = (field.extra_data.select_options ?? []).find(
        (o) => o.label.toLowerCase() === String(v).toLowerCase(),
      );
      if (!option) throw new NoneMatch(`${f.field} has no option "${String(v)}"`);
      return option.id;
    }
    if (type === 'documentlink') {
      const id = Number(v);
      if (!Number.isInteger(id) || id < 1)
        throw new Unanswerable(`${f.field}: ${JSON.stringify(v)} is not a document id`);
      return id;
    }
    return String(v);
  };
  if (type === 'documentlink') {
    if (f.op !== 'contains')
      throw new Unanswerable(`${f.field} is a document link: a query can only ask which documents it contains`);
    return [field.id, 'contains', list(f.value).map(value)];
  }
  if (f.op === 'contains' || f.op === 'starts_with' || f.op === 'ends_with') {
    if (type !== 'string' && type !== 'url' && type !== 'longtext')
      throw new Unanswerable(`${f.field} is ${type}: ${f.op} applies to text fields`);
    return [field.id, LOOKUPS[f.op], String(f.value)];
  }
  // Paperless 2.x compares a monetary field's exact/in with its stored text ("EUR12.00"), 3.x with the amount:
  // a range over the amount means the same on both.
  if (type === 'monetary' && f.op === 'equals')
    return [field.id, 'range', [value(f.value as Scalar), value(f.value as Scalar)]];
  if (type === 'monetary' && f.op === 'in') throw new Unanswerable(`${f.field} is monetary: use equals, gt or lt`);
  if (f.op === 'in') return [field.id, 'in', list(f.value).map(value)];
  if (f.op === 'equals') return [field.id, 'exact', value(f.value as Scalar)];
  if (type === 'string' || type === 'url' || type === 'longtext' || type === 'boolean' || type === 'select')
    throw new Unanswerable(`${f.field} is ${type}: ${f.op} compares numbers and dates`);
  return [field.id, f.op, value(f.value as Scalar)];
}
