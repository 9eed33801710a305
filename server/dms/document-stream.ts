import { DEFAULT_PAGE_SIZE, documentListParams } from './document-query.js';
import type { Transport } from './http-transport.js';
import type { DmsDocument, DocumentPage, DocumentQuery } from './types.js';

// Page numbers shift when documents stop matching the filter mid-scan (a job that removes the very tag it
// filtered on would skip every other page). So the scan first snapshots the matching ids (8 bytes each),
// then fetches the documents in id chunks: every document matching at the start is seen exactly once.

// `fields=id` trims only Paperless's output: its queryset still loads every row's content and prefetches
// tags, notes and custom fields, so a 10,000-id page can run into a proxy's or gunicorn's timeout on a
// slow host. 500 rows answer in about a second even there (docs/performance.md), and since every id page is
// requested at once, a dms with several workers starts on all of them together.
export const ID_PAGE_SIZE = 500;
// Keeps `id__in=…` well under the 8 KB request-line limit of common proxies.
export const MAX_ID_CHUNK = 500;

interface PageBody<T> {
  count: number;
  next: string | null;
  results: T[];
  /** 2.x (and API version 9): the ids of every matching document, on every page. */
  all?: unknown;
}

/** A promise whose failure is reported only when awaited, not as an unhandled rejection meanwhile. */
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

async function idPage(transport: Transport, query: DocumentQuery, page: number, pageSize = ID_PAGE_SIZE): Promise<PageBody<{ id: number }>> {
  const params = documentListParams({ filters: query.filters, fields: ['id'], pageSize }, page);
  const res = await transport.send({ method: 'GET', path: '/api/documents/', query: params, idempotent: true });
  return res.json as PageBody<{ id: number }>;
}

/**
 * The matching ids page by page, in id order. A one-row request learns the count first, so every id page
 * can be requested at once (a slow dms works on several in parallel instead of one after the other).
 */
async function* matchingIds(transport: Transport, query: DocumentQuery, count: number): AsyncGenerator<number[]> {
  const pages = Array.from({ length: Math.ceil(count / ID_PAGE_SIZE) }, (_, i) => quiet(idPage(transport, query, i + 1)));
  const seen = new Set<number>();
  // A document deleted between two id requests shifts the later pages by one: never hand out an id twice.
  for (const page of pages) yield (await page).results.map((d) => d.id).filter((id) => !seen.has(id) && seen.add(id));
}

/**
 * Streams the documents matching `query` in chunks of `pageSize`; `ahead` chunks are requested before the
 * consumer asks for them, so memory holds at most `ahead + 1` chunks.
 */
export async function* streamDocuments(transport: Transport, query: DocumentQuery): AsyncGenerator<DocumentPage> {
  const probe = await idPage(transport, query, 1, 1);
  const { count } = probe;
  if (count === 0) {
    yield { count: 0, documents: [] };
    return;
  }
  const size = Math.min(MAX_ID_CHUNK, Math.max(1, Math.floor(query.pageSize ?? DEFAULT_PAGE_SIZE)));
  const ahead = Math.max(0, Math.floor(query.ahead ?? 0));
  const fetchChunk = async (chunk: number[]): Promise<DmsDocument[]> => {
    const params = documentListParams(
      { fields: query.fields, truncateContent: query.truncateContent, fullPerms: query.fullPerms, pageSize: chunk.length, filters: { id__in: chunk.join(',') } },
      1,
    );
    const res = await transport.send({ method: 'GET', path: '/api/documents/', query: params, idempotent: true });
    // A document deleted since the snapshot is simply absent from its chunk.
    return (res.json as PageBody<DmsDocument>).results;
  };
  const requested: Array<Promise<DmsDocument[]>> = [];
  let waiting: number[] = [];
  // On 2.x the one-row probe already carries every matching id (in the list's order, by id): paging through ids
  // would download all of them again with every page.
  const all = Array.isArray(probe.all) && probe.all.length === count && probe.all.every(Number.isInteger) ? [probe.all as number[]] : null;
  for await (const ids of all ?? matchingIds(transport, query, count)) {
    waiting = waiting.concat(ids);
    while (waiting.length >= size) {
      requested.push(quiet(fetchChunk(waiting.slice(0, size))));
      waiting = waiting.slice(size);
      if (requested.length > ahead) yield { count, documents: await (requested.shift() as Promise<DmsDocument[]>) };
    }
  }
  if (waiting.length > 0) requested.push(quiet(fetchChunk(waiting)));
  while (requested.length > 0) yield { count, documents: await (requested.shift() as Promise<DmsDocument[]>) };
}
