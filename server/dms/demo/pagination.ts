/** DRF PageNumberPagination as Paperless configures it (§2): page from 1, page_size default 25, max 100000. */
export interface PageRequest {
  page: number;
  pageSize: number;
}

const DEFAULT_SIZE = 25;
const MAX_SIZE = 100_000;

/** Parses page/page_size; null page means "Invalid page." (404). */
export function pageRequest(params: URLSearchParams): PageRequest | null {
  const rawSize = params.get('page_size');
  const size =
    rawSize !== null && /^\d+$/.test(rawSize) && Number(rawSize) > 0
      ? Math.min(MAX_SIZE, Number(rawSize))
      : DEFAULT_SIZE;
  const rawPage = params.get('page');
  if (rawPage === null || rawPage === '') return { page: 1, pageSize: size };
  if (!/^\d+$/.test(rawPage) || Number(rawPage) < 1) return null;
  return { page: Number(rawPage), pageSize: size };
}

// DRF rebuilds links from the request URL with the query re-encoded in sorted order.
function link(base: string, params: URLSearchParams, page: number | null): string {
  const copy = new URLSearchParams(params);
  if (page === null) copy.delete('page');
  else copy.set('page', String(page));
  copy.sort();
  const query = copy.toString();
  return query ? `${base}?${query}` : base;
}

export interface PageResult<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** One page of `total` items; `slice(start, end)` fetches just that window. Null when the page is out of range. */
export function paginate<T>(
  total: number,
  slice: (start: number, end: number) => T[],
  request: PageRequest,
  base: string,
  params: URLSearchParams,
): PageResult<T> | null {
  const pages = Math.max(1, Math.ceil(total / request.pageSize));
  if (request.page > pages) return null;
  const start = (request.page - 1) * request.pageSize;
  return {
    count: total,
    next: request.page < pages ? link(base, params, request.page + 1) : null,
    previous: request.page > 1 ? link(base, params, request.page === 2 ? null : request.page - 1) : null,
    results: slice(start, Math.min(total, start + request.pageSize)),
  };
}
