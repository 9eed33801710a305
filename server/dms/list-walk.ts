import { DmsError } from './dms-errors.js';
import type { Transport } from './http-transport.js';

// Nothing a dms says about sizes may size an allocation or a loop (docs/decisions.md#the-dms): every answer is checked against
// what was asked, and every walk has a hard end. A dms that lies ends the read with an error naming its answer.

/** Pages of one vocabulary list the service reads at most (1000 items each: 100,000 tags is far past any real archive). */
export const MAX_LIST_PAGES = 100;
/** The most documents one document list may claim; beyond it the dms is lying or the query is far too wide. */
export const MAX_LISTED_DOCUMENTS = 2_000_000;
/** Notes (or audit-log entries) of one document the service reads at most. */
export const MAX_NOTES = 10_000;

export interface ListPage<T> {
  count: number;
  next: string | null;
  results: T[];
  /** 2.x (and API version 9): the ids of every matching document, when they are exactly `count` positive integers. */
  all?: number[];
}

export interface PageAsk {
  /** The dms base URL (the client's), to tell the dms's own `next` link from a foreign one. */
  base: string;
  /** The list's path below the base, e.g. `/api/tags/`. */
  path: string;
  page: number;
  pageSize: number;
}

function describe(ask: PageAsk): string {
  return `page ${ask.page} of GET ${ask.path}`;
}

function fail(message: string, ask: PageAsk): never {
  throw new DmsError(
    `${message}; the service stopped reading that list (a dms that lies about its lists is refused, not followed)`,
    `GET ${ask.path}`,
    200,
  );
}

/** The page number `next` names when it is the dms's own link to the same list, or null when it is foreign. */
export function ownNextPage(next: string, ask: PageAsk): number | null {
  let link: URL;
  const base = new URL(ask.base);
  try {
    link = new URL(next, base);
  } catch {
    return null;
  }
  // Paperless builds `next` from the request's Host and scheme, so behind a TLS proxy the scheme (and with it the
  // default port) may differ; the host name and the list may not. A proxy may also strip the base path prefix.
  if (link.hostname.toLowerCase() !== base.hostname.toLowerCase()) return null;
  const basePath = base.pathname.replace(/\/+$/, '');
  if (link.pathname !== `${basePath}${ask.path}` && link.pathname !== ask.path) return null;
  const page = link.searchParams.get('page');
  return page !== null && /^\d{1,9}$/.test(page) ? Number(page) : null;
}

/** The configured base with the host of `next`, to tell "same list, other host" from a foreign link. */
function proxiedBase(next: string, base: string): string {
  try {
    const moved = new URL(base);
    moved.hostname = new URL(next, base).hostname;
    return moved.toString();
  } catch {
    return base;
  }
}

/** One list page as the dms answered it, refused unless it is the shape and size that was asked for. */
export function checkedPage<T>(json: unknown, ask: PageAsk, maxCount = Number.MAX_SAFE_INTEGER): ListPage<T> {
  const body = json as Partial<ListPage<T>> | null;
  if (!body || typeof body !== 'object' || !Array.isArray(body.results))
    fail(`the dms answered ${describe(ask)} without a results list`, ask);
  const { count, next, results } = body as ListPage<T>;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0)
    fail(`the dms said count ${String(count)} for ${describe(ask)}`, ask);
  if (count > maxCount)
    fail(
      `the dms said count ${count} for ${describe(ask)}, more than the ${maxCount} the service reads in one list`,
      ask,
    );
  if (results.length > ask.pageSize)
    fail(`the dms answered ${results.length} items on ${describe(ask)} for a page size of ${ask.pageSize}`, ask);
  if (next !== null && next !== undefined) {
    if (typeof next !== 'string') fail(`the dms answered ${describe(ask)} with a next link that is not a URL`, ask);
    const page = ownNextPage(next, ask);
    if (page === null) {
      const other = ownNextPage(next, { ...ask, base: proxiedBase(next, ask.base) });
      // The same list on another host name: most likely a reverse proxy that passes Paperless another Host.
      const hint =
        other === null
          ? ''
          : ` (if a reverse proxy in front of Paperless passes it another Host, forward the Host header, e.g. nginx "proxy_set_header Host $host;", or use the address Paperless sees as the dms URL)`;
      fail(
        `the dms's next link on ${describe(ask)} is ${next.slice(0, 200)}, not a page of that list on the dms${hint}`,
        ask,
      );
    }
    if (page !== ask.page + 1)
      fail(
        `the dms's next link on ${describe(ask)} names page ${page} (${next.slice(0, 200)}), not page ${ask.page + 1}`,
        ask,
      );
    if (results.length === 0) fail(`the dms answered ${describe(ask)} with no items but a next page`, ask);
  }
  const all = (body as { all?: unknown }).all;
  const ids =
    Array.isArray(all) && all.length === count && all.every((id) => Number.isSafeInteger(id) && (id as number) > 0)
      ? (all as number[])
      : undefined;
  return { count, next: next ?? null, results, ...(ids ? { all: ids } : {}) };
}

export interface WalkOptions {
  base: string;
  path: string;
  query?: URLSearchParams;
  pageSize: number;
  /** Pages read at most; a dms still naming a next page after them is an error. */
  maxPages: number;
}

/**
 * The pages of one list, one request at a time, each checked (`checkedPage`); ends at the last page, and with an
 * error at a lie or after `maxPages`. A 403 is the caller's to interpret (thrown as the transport threw it).
 */
export async function* walkList<T>(transport: Transport, options: WalkOptions): AsyncGenerator<T[]> {
  for (let page = 1; ; page++) {
    const ask: PageAsk = { base: options.base, path: options.path, page, pageSize: options.pageSize };
    const query = new URLSearchParams(options.query);
    query.set('page', String(page));
    query.set('page_size', String(options.pageSize));
    const res = await transport.send({ method: 'GET', path: options.path, query, idempotent: true });
    const body = checkedPage<T>(res.json, ask);
    yield body.results;
    if (body.next === null) return;
    if (page >= options.maxPages) {
      fail(
        `the dms still named a next page after ${page} pages of GET ${options.path} (${page * options.pageSize} items); the service reads at most ${options.maxPages} pages of one list`,
        ask,
      );
    }
  }
}

/** A plain-array answer (notes, history) bounded by `max` items, or an error naming what the dms sent. */
export function checkedArray<T>(json: unknown, label: string, max: number): T[] {
  if (!Array.isArray(json))
    throw new DmsError(
      `the dms answered ${label} with ${json === null ? 'null' : typeof json}, not a list`,
      label,
      200,
    );
  if (json.length > max)
    throw new DmsError(
      `the dms answered ${label} with ${json.length} entries, more than the ${max} the service reads`,
      label,
      200,
    );
  return json as T[];
}
