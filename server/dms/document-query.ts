import { DmsQueryError } from './dms-errors.js';
import type { DocumentQuery } from './types.js';

const LOOKUPS = ['iexact', 'icontains', 'istartswith', 'iendswith'];
const COMPARE = ['gt', 'gte', 'lt', 'lte'];

function expand(prefix: string, suffixes: string[]): string[] {
  return suffixes.map((s) => `${prefix}__${s}`);
}

// Paperless ignores unknown parameters, so a misspelt filter would silently match every document (§9.6).
export const DOCUMENT_FILTERS: ReadonlySet<string> = new Set([
  'id',
  'id__in',
  'tags__id',
  'tags__id__all',
  'tags__id__in',
  'tags__id__none',
  ...expand('tags__name', LOOKUPS),
  'is_tagged',
  'is_in_inbox',
  ...['correspondent', 'document_type', 'storage_path'].flatMap((rel) => [
    `${rel}__id`,
    `${rel}__id__in`,
    `${rel}__id__none`,
    `${rel}__isnull`,
    ...expand(`${rel}__name`, LOOKUPS),
  ]),
  ...expand('title', LOOKUPS),
  ...expand('content', LOOKUPS),
  'title_content',
  'search',
  ...expand('created', [...COMPARE, 'year', 'month', 'day']),
  ...expand('created__date', COMPARE),
  ...['added', 'modified'].flatMap((f) => [
    ...expand(f, [...COMPARE, 'year', 'month', 'day']),
    ...expand(`${f}__date`, COMPARE),
  ]),
  'archive_serial_number',
  ...expand('archive_serial_number', [...COMPARE, 'isnull']),
  ...expand('original_filename', LOOKUPS),
  ...expand('checksum', LOOKUPS),
  'mime_type',
  'owner__id',
  'owner__id__in',
  'owner__id__none',
  'owner__isnull',
  'custom_fields__id__all',
  'custom_fields__id__in',
  'custom_fields__id__none',
  'has_custom_fields',
  'custom_field_query',
]);

export const DEFAULT_PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 100_000;

/** The query string for one page of `GET /api/documents/`, ordered so paging is stable (`id` unless asked otherwise). */
export function documentListParams(query: DocumentQuery, page: number, ordering = 'id'): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query.filters ?? {})) {
    if (!DOCUMENT_FILTERS.has(name)) {
      throw new DmsQueryError(
        `Unknown dms document filter "${name}"; Paperless would ignore it and match every document.`,
      );
    }
    params.set(name, value);
  }
  if (query.fields?.length) params.set('fields', query.fields.join(','));
  if (query.truncateContent) params.set('truncate_content', 'true');
  if (query.fullPerms) params.set('full_perms', 'true');
  const asked = query.pageSize ?? DEFAULT_PAGE_SIZE;
  const size = Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(asked)));
  params.set('page_size', String(size));
  params.set('page', String(page));
  params.set('ordering', ordering);
  return params;
}
