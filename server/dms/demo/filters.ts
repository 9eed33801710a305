import { compileCustomFieldQuery } from './custom-field-query.js';
import type { SimStore } from './store.js';
import type { SimDocument } from './sim-types.js';

/** A compiled document filter; `errors` holds Paperless-shaped 400 messages per parameter. */
export interface CompiledFilter {
  test(doc: SimDocument): boolean;
  errors: Record<string, unknown>;
  /** True when no filter applies (the list can be sliced without scanning). */
  empty: boolean;
}

type Predicate = (doc: SimDocument) => boolean;
type Relation = 'correspondent' | 'document_type' | 'storage_path';

const LOOKUPS: Record<string, (value: string, needle: string) => boolean> = {
  iexact: (v, n) => v.toLowerCase() === n.toLowerCase(),
  icontains: (v, n) => v.toLowerCase().includes(n.toLowerCase()),
  istartswith: (v, n) => v.toLowerCase().startsWith(n.toLowerCase()),
  iendswith: (v, n) => v.toLowerCase().endsWith(n.toLowerCase()),
};

// Lenient id lists (tags__id__all, …) drop malformed items silently; strict ones (id__in, …) answer 400.
function lenientIds(value: string): number[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => /^\d+$/.test(s))
    .map(Number);
}

function strictIds(value: string): number[] | null {
  const parts = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return parts.every((p) => /^-?\d+$/.test(p)) ? parts.map(Number) : null;
}

function bool(value: string): boolean | null {
  const v = value.toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  return null;
}

function dateTime(value: string): number | null {
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  return Number.isNaN(ms) ? null : ms;
}

const COMPARE: Record<string, (a: number, b: number) => boolean> = {
  gt: (a, b) => a > b,
  gte: (a, b) => a >= b,
  lt: (a, b) => a < b,
  lte: (a, b) => a <= b,
};

/** Builds the §4.4 filters the client uses (and a few more); unknown parameters are ignored, as Paperless does. */
export function compileFilter(store: SimStore, params: URLSearchParams): CompiledFilter {
  const predicates: Predicate[] = [];
  const errors: Record<string, unknown> = {};
  const inboxTags = () => new Set(store.objects.tags.filter((t) => t.is_inbox_tag).map((t) => t.id));
  const tagName = (id: number) => store.object('tags', id)?.name ?? '';

  for (const [name, value] of params) {
    let match: RegExpExecArray | null;
    if (name === 'id') {
      const ids = strictIds(value);
      if (!ids || ids.length !== 1) errors[name] = ['Enter a number.'];
      else predicates.push((d) => d.id === ids[0]);
    } else if (name === 'id__in') {
      const ids = strictIds(value);
      if (!ids) errors[name] = ['Enter a number.'];
      else {
        // A set, as a database's index would: a job's id chunks would otherwise cost the fake ids × documents.
        const wanted = new Set(ids);
        predicates.push((d) => wanted.has(d.id));
      }
    } else if (name === 'tags__id') {
      const id = Number(value);
      if (/^\d+$/.test(value)) predicates.push((d) => d.tags.includes(id));
    } else if ((match = /^tags__id__(all|in|none)$/.exec(name))) {
      const ids = lenientIds(value);
      if (ids.length === 0) continue;
      const op = match[1];
      predicates.push((d) =>
        op === 'all'
          ? ids.every((t) => d.tags.includes(t))
          : op === 'in'
            ? ids.some((t) => d.tags.includes(t))
            : !ids.some((t) => d.tags.includes(t)),
      );
    } else if ((match = /^tags__name__(iexact|icontains|istartswith|iendswith)$/.exec(name))) {
      const lookup = LOOKUPS[match[1]];
      predicates.push((d) => d.tags.some((t) => lookup(tagName(t), value)));
    } else if (name === 'is_tagged') {
      const b = bool(value);
      if (b !== null) predicates.push((d) => d.tags.length > 0 === b);
    } else if (name === 'is_in_inbox') {
      if (value !== 'true' && value !== 'false') continue;
      const inbox = inboxTags();
      predicates.push((d) => d.tags.some((t) => inbox.has(t)) === (value === 'true'));
    } else if (
      (match =
        /^(correspondent|document_type|storage_path)__(id|id__in|id__none|isnull|name__iexact|name__icontains|name__istartswith|name__iendswith)$/.exec(
          name,
        ))
    ) {
      const rel = match[1] as Relation;
      const op = match[2];
      const kind =
        rel === 'correspondent' ? 'correspondents' : rel === 'document_type' ? 'document_types' : 'storage_paths';
      if (op === 'id') {
        if (!/^\d+$/.test(value)) errors[name] = ['Enter a number.'];
        else predicates.push((d) => d[rel] === Number(value));
      } else if (op === 'id__in') {
        const ids = strictIds(value);
        if (!ids) errors[name] = ['Enter a number.'];
        else predicates.push((d) => d[rel] !== null && ids.includes(d[rel]));
      } else if (op === 'id__none') {
        const ids = lenientIds(value);
        if (ids.length) predicates.push((d) => d[rel] === null || !ids.includes(d[rel]));
      } else if (op === 'isnull') {
        const b = bool(value);
        if (b !== null) predicates.push((d) => (d[rel] === null) === b);
      } else {
        const lookup = LOOKUPS[op.slice('name__'.length)];
        predicates.push((d) => d[rel] !== null && lookup(store.object(kind, d[rel])?.name ?? '', value));
      }
    } else if ((match = /^(title|content|original_filename)__(iexact|icontains|istartswith|iendswith)$/.exec(name))) {
      const lookup = LOOKUPS[match[2]];
      const field = match[1];
      predicates.push((d) =>
        lookup(field === 'title' ? d.title : field === 'content' ? d.content : (d.original_file_name ?? ''), value),
      );
    } else if (name === 'title_content') {
      predicates.push((d) => LOOKUPS.icontains(d.title, value) || LOOKUPS.icontains(d.content, value));
    } else if (name === 'mime_type') {
      predicates.push((d) => d.mime_type.includes(value));
    } else if ((match = /^(created|added|modified)(?:__date)?__(gt|gte|lt|lte)$/.exec(name))) {
      const field = match[1] as 'created' | 'added' | 'modified';
      const compare = COMPARE[match[2]];
      const at = dateTime(value);
      const dateOnly = field === 'created' || name.includes('__date__');
      if (at === null || (field !== 'created' && /\s/.test(value))) {
        errors[name] = [dateOnly ? 'Enter a valid date.' : 'Enter a valid date/time.'];
        continue;
      }
      const bound = dateOnly ? (dateTime(value.slice(0, 10)) ?? at) : at;
      predicates.push((d) => {
        const own = dateTime(dateOnly ? d[field].slice(0, 10) : d[field]);
        return own !== null && compare(own, bound);
      });
    } else if ((match = /^(created|added|modified)__(year|month|day)$/.exec(name))) {
      const field = match[1] as 'created' | 'added' | 'modified';
      const part = match[2];
      const index = part === 'year' ? [0, 4] : part === 'month' ? [5, 7] : [8, 10];
      predicates.push((d) => Number(d[field].slice(index[0], index[1])) === Number(value));
    } else if ((match = /^archive_serial_number(?:__(gt|gte|lt|lte|isnull))?$/.exec(name))) {
      const op = match[1];
      if (op === 'isnull') {
        const b = bool(value);
        if (b !== null) predicates.push((d) => (d.archive_serial_number === null) === b);
      } else if (!/^\d+$/.test(value)) errors[name] = ['Enter a number.'];
      else if (!op) predicates.push((d) => d.archive_serial_number === Number(value));
      else
        predicates.push((d) => d.archive_serial_number !== null && COMPARE[op](d.archive_serial_number, Number(value)));
    } else if (name === 'owner__id') {
      predicates.push((d) => d.owner === Number(value));
    } else if (name === 'owner__id__in') {
      const ids = strictIds(value);
      if (!ids) errors[name] = ['Enter a number.'];
      else predicates.push((d) => d.owner !== null && ids.includes(d.owner));
    } else if (name === 'owner__id__none') {
      // ObjectFilter: one item that is no integer makes it ignore the whole list.
      const items = value.split(',');
      const ids = items.every((s) => /^\s*-?\d+\s*$/.test(s)) ? items.map(Number) : [];
      if (ids.length > 0) predicates.push((d) => d.owner === null || !ids.includes(d.owner));
    } else if (name === 'shared_by__id') {
      // SharedByUser: owned by that user and holding any user or group grant.
      if (/^\d+$/.test(value)) predicates.push((d) => d.owner === Number(value) && store.grants.has(d.id));
    } else if (name === 'owner__isnull') {
      const b = bool(value);
      if (b !== null) predicates.push((d) => (d.owner === null) === b);
    } else if ((match = /^custom_fields__id__(all|in|none)$/.exec(name))) {
      const ids = lenientIds(value);
      if (ids.length === 0) continue;
      const op = match[1];
      const has = (d: SimDocument, id: number) => d.custom_fields.some((cf) => cf.field === id);
      predicates.push((d) =>
        op === 'all'
          ? ids.every((id) => has(d, id))
          : op === 'in'
            ? ids.some((id) => has(d, id))
            : !ids.some((id) => has(d, id)),
      );
    } else if (name === 'custom_field_query') {
      const query = compileCustomFieldQuery(store, value);
      if (query.error) errors[name] = query.error;
      else predicates.push(query.test!);
    } else if (name === 'has_custom_fields') {
      const b = bool(value);
      if (b !== null) predicates.push((d) => d.custom_fields.length > 0 === b);
    }
  }
  return { test: (doc) => predicates.every((p) => p(doc)), errors, empty: predicates.length === 0 };
}

/**
 * `ordering=[-]custom_field_<id>` (DocumentsOrderingFilter): documents with the field first, then by its value
 * (NULLs first when descending, as PostgreSQL sorts); the whole parameter is the one key, as Paperless reads the
 * id as everything after the prefix (`custom_field_5,-id` is a 500 there). Null when the ordering is no custom field.
 */
export function customFieldOrdering(
  store: SimStore,
  ordering: string | null,
): { compare: (a: SimDocument, b: SimDocument) => number } | { status: number; body: unknown } | null {
  const prefix = 'custom_field_';
  if (!ordering?.includes(prefix)) return null;
  const raw = ordering.split(prefix)[1];
  if (!/^\d+$/.test(raw)) return { status: 500, body: { detail: 'A server error occurred.' } };
  const field = store.objects.custom_fields.find((f) => f.id === Number(raw));
  if (!field) return { status: 400, body: { [`${prefix}${raw}`]: ['Custom field not found'] } };
  const descending = ordering.trim().startsWith('-');
  const options = [
    ...((field.extra_data as { select_options?: Array<{ id: string; label: string }> })?.select_options ?? []),
  ]
    .sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0))
    .map((o) => o.id);
  const instance = (d: SimDocument) => d.custom_fields.find((cf) => cf.field === field.id);
  const key = (d: SimDocument): number | string | null => {
    const v = instance(d)?.value;
    if (v === null || v === undefined) return field.data_type === 'select' && instance(d) ? options.length : null;
    if (field.data_type === 'monetary') {
      const m = /^[A-Z]{0,3}(-?\d+(?:\.\d+)?)$/.exec(String(v));
      return m ? Number(m[1]) : null;
    }
    if (field.data_type === 'select') return options.indexOf(String(v));
    if (typeof v === 'number') return v;
    if (typeof v === 'boolean') return v ? 1 : 0;
    return Array.isArray(v) ? JSON.stringify(v) : String(v);
  };
  return {
    compare(a, b) {
      const has = Number(instance(b) !== undefined) - Number(instance(a) !== undefined);
      if (has !== 0) return has;
      const x = key(a);
      const y = key(b);
      if (x === y) return 0;
      const sign = descending ? -1 : 1;
      if (x === null) return sign;
      if (y === null) return -sign;
      return (x < y ? -1 : 1) * sign;
    },
  };
}
