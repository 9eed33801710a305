import { DEFAULT_PAGE_SIZE, documentListParams } from './document-query.js';
import { DmsError } from './errors.js';
import type { Transport } from './http-transport.js';
import { checkedPage, MAX_LISTED_DOCUMENTS, type ListPage } from './list-walk.js';
import type { DmsDocument, DocumentPage, DocumentQuery } from './types.js';

// Page numbers shift when documents stop matching the filter mid-scan (a job that removes the very tag it
// filtered on would skip every other page). So the scan first snapshots the matching ids (8 bytes each, at
// most MAX_LISTED_DOCUMENTS of them, held as the dms delivers them, never sized by its count), then fetches
// the documents in id chunks: every document matching at the start is seen exactly once.

// `fields=id` trims only Paperless's output: its queryset still loads every row's content and prefetches
// tags, notes and custom fields, so a 10,000-id page can run into a proxy's or gunicorn's timeout on a
// slow host. 500 rows answer in about a second even there (docs/performance.md).
export const ID_PAGE_SIZE = 500;
// Id pages requested before they are needed, so a dms with several workers starts on them together. Never
// the whole list at once: the count is the dms's word, and a lying one (count 5e9) must not size anything.
export const ID_PAGES_AHEAD = 4;
// Keeps `id__in=…` well under the 8 KB request-line limit of common proxies.
export const MAX_ID_CHUNK = 500;

const DOCUMENTS = '/api/documents/';

/** A promise whose failure is reported only when awaited, not as an unhandled rejection meanwhile. */
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

async function idPage(
  transport: Transport,
  query: DocumentQuery,
  page: number,
  pageSize = ID_PAGE_SIZE,
): Promise<ListPage<{ id: number }>> {
  const params = documentListParams({ filters: query.filters, fields: ['id'], pageSize }, page);
  const res = await transport.send({ method: 'GET', path: DOCUMENTS, query: params, idempotent: true });
  const body = checkedPage<{ id: number }>(
    res.json,
    { base: transport.url, path: DOCUMENTS, page, pageSize },
    MAX_LISTED_DOCUMENTS,
  );
  for (const d of body.results) {
    if (!d || !Number.isSafeInteger(d.id) || d.id < 1) {
      throw new DmsError(
        `the dms answered page ${page} of GET ${DOCUMENTS} with a document id ${JSON.stringify(d?.id)}, not a positive integer`,
        `GET ${DOCUMENTS}`,
        200,
      );
    }
  }
  return body;
}

/**
 * The matching ids page by page, in id order: the pages the count promises (at most), `ID_PAGES_AHEAD` of them in
 * flight while the consumer works, ending early at a page without `next` (documents deleted since the count).
 */
async function* matchingIds(transport: Transport, query: DocumentQuery, count: number): AsyncGenerator<number[]> {
  const pages = Math.ceil(count / ID_PAGE_SIZE);
  const requested: Array<Promise<ListPage<{ id: number }>>> = [];
  let nextPage = 1;
  // A document deleted between two id requests shifts the later pages by one: ids ascend (ordering=id), so
  // one already handed out is at most the last one.
  let lastId = 0;
  while (nextPage <= pages || requested.length > 0) {
    while (nextPage <= pages && requested.length <= ID_PAGES_AHEAD)
      requested.push(quiet(idPage(transport, query, nextPage++)));
    const body = await (requested.shift() as Promise<ListPage<{ id: number }>>);
    const ids = body.results.map((d) => d.id).filter((id) => id > lastId);
    lastId = ids.at(-1) ?? lastId;
    yield ids;
    if (body.next === null) return;
  }
}

/**
 * Streams the documents matching `query` in chunks of `pageSize`; `ahead` chunks are requested before the
 * consumer asks for them, so memory holds at most `ahead + 1` chunks.
 */
export async function* streamDocuments(transport: Transport, query: DocumentQuery): AsyncGenerator<DocumentPage> {
  const probe = await idPage(transport, query, 1, 1);
  const { count, all } = probe;
  if (count === 0) {
    yield { count: 0, documents: [] };
    return;
  }
  const size = Math.min(MAX_ID_CHUNK, Math.max(1, Math.floor(query.pageSize ?? DEFAULT_PAGE_SIZE)));
  const ahead = Math.max(0, Math.floor(query.ahead ?? 0));
  const fetchChunk = async (chunk: number[]): Promise<DmsDocument[]> => {
    const params = documentListParams(
      {
        fields: query.fields,
        truncateContent: query.truncateContent,
        fullPerms: query.fullPerms,
        pageSize: chunk.length,
        filters: { id__in: chunk.join(',') },
      },
      1,
    );
    const res = await transport.send({ method: 'GET', path: DOCUMENTS, query: params, idempotent: true });
    // A document deleted since the snapshot is simply absent from its chunk.
    return checkedPage<DmsDocument>(res.json, { base: transport.url, path: DOCUMENTS, page: 1, pageSize: chunk.length })
      .results;
  };
  // On 2.x the one-row probe already carries every matching id (in the list's order, by id): paging through ids
  // would download all of them again with every page.
  const ids: number[] = all ? [...all] : [];
  if (!all) for await (const page of matchingIds(transport, query, count)) ids.push(...page);
  const requested: Array<Promise<DmsDocument[]>> = [];
  for (let start = 0; start < ids.length; start += size) {
    requested.push(quiet(fetchChunk(ids.slice(start, start + size))));
    if (requested.length > ahead) yield { count, documents: await (requested.shift() as Promise<DmsDocument[]>) };
  }
  while (requested.length > 0) yield { count, documents: await (requested.shift() as Promise<DmsDocument[]>) };
}
