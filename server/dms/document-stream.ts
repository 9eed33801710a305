import { documentListParams } from './document-query.js';
import { DmsError } from './dms-errors.js';
import type { Transport } from './http-transport.js';
import { checkedPage, MAX_LISTED_DOCUMENTS, type ListPage } from './list-walk.js';
import { heldRows, MAX_READ_PAGE, outstanding, readPageSize, type ReadPlan } from './read-plan.js';
import { pumpRequests, type PumpedRequest } from './request-pump.js';
import type { DmsDocument, DocumentPage, DocumentQuery } from './types.js';

// Page numbers shift when documents stop matching the filter mid-scan (a job that removes the very tag it
// filtered on would skip every other page). So a filtered scan first snapshots the matching ids (8 bytes each, at
// most MAX_LISTED_DOCUMENTS of them, held as the dms delivers them, never sized by its count), then fetches
// the documents in id chunks: every document matching at the start is seen exactly once. An unfiltered scan on
// API version 10 reads plain pages instead and rechecks what could have slid between them (`pagedDocuments`).

// `fields=id` trims only Paperless's output: its queryset still loads every row's content and prefetches
// tags, notes and custom fields, so a 10,000-id page can run into a reverse proxy's timeout on a slow host.
// 500 rows answer in about a second even there (docs/performance.md).
export const ID_PAGE_SIZE = 500;
// Id pages requested before they are needed, so a dms with several workers starts on them together. Never
// the whole list at once: the count is the dms's word, and a lying one (count 5e9) must not size anything.
export const ID_PAGES_AHEAD = 4;
// Keeps `id__in=…` well under the 8 KB request-line limit of common proxies.
export const MAX_ID_CHUNK = 500;

const DOCUMENTS = '/api/documents/';

async function idPage(
  transport: Transport,
  query: DocumentQuery,
  page: number,
  pageSize = ID_PAGE_SIZE,
  ordering: 'id' | '-id' = 'id',
  onAnswer?: () => void,
): Promise<ListPage<{ id: number }>> {
  const params = documentListParams({ filters: query.filters, fields: ['id'], pageSize }, page, ordering);
  const res = await transport.send({ method: 'GET', path: DOCUMENTS, query: params, idempotent: true, onAnswer });
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
 * The matching ids page by page, in id order: the pages the count promises (at most), one per dms worker (at most
 * `ID_PAGES_AHEAD`) in flight while the consumer works and one queued, ending early at a page without `next`
 * (documents deleted since the count).
 */
async function* matchingIds(
  transport: Transport,
  query: DocumentQuery,
  count: number,
  plan: ReadPlan,
): AsyncGenerator<number[]> {
  function* requests(): Generator<PumpedRequest<ListPage<{ id: number }>>> {
    for (let page = 1; page <= Math.ceil(count / ID_PAGE_SIZE); page++)
      yield { rows: ID_PAGE_SIZE, send: (answered) => idPage(transport, query, page, ID_PAGE_SIZE, 'id', answered) };
  }
  // A document deleted between two id requests shifts the later pages by one: ids ascend (ordering=id), so
  // one already handed out is at most the last one.
  let lastId = 0;
  const workers = Math.min(ID_PAGES_AHEAD, plan.dmsWorkers);
  for await (const body of pumpRequests(requests(), outstanding(workers), heldRows(ID_PAGE_SIZE, workers))) {
    const ids = body.results.map((d) => d.id).filter((id) => id > lastId);
    lastId = ids.at(-1) ?? lastId;
    yield ids;
    if (body.next === null) return;
  }
}

/** One list page, or null when the dms says the page does not exist (404 `Invalid page.`: the list shrank). */
async function documentPage(
  transport: Transport,
  params: URLSearchParams,
  ask: { page: number; pageSize: number },
  onAnswer?: () => void,
): Promise<ListPage<DmsDocument> | null> {
  try {
    const res = await transport.send({ method: 'GET', path: DOCUMENTS, query: params, idempotent: true, onAnswer });
    return checkedPage<DmsDocument>(res.json, { base: transport.url, path: DOCUMENTS, ...ask }, MAX_LISTED_DOCUMENTS);
  } catch (err) {
    if (err instanceof DmsError && err.dmsStatus === 404) return null;
    throw err;
  }
}

/** Ids strictly between consecutive pages (and after the last one) that no page delivered, `MAX_ID_CHUNK` at a time. */
function* unseenIds(gaps: Array<[number, number]>): Generator<number[]> {
  let chunk: number[] = [];
  for (const [after, before] of gaps)
    for (let id = after + 1; id < before; id++) {
      chunk.push(id);
      if (chunk.length === MAX_ID_CHUNK) {
        yield chunk;
        chunk = [];
      }
    }
  if (chunk.length > 0) yield chunk;
}

/** More unseen ids than this after a read means the list changed too much while it was read to recheck by id. */
const MAX_RECHECKED_IDS = 200_000;

/**
 * All documents by plain pages (`ordering=id`), no id snapshot: on Paperless every row of a `fields=id` page
 * costs as much as a whole document (its queryset loads them), so a snapshot doubles what the dms works for.
 * The snapshot's promise is kept another way. The probe gave the newest id, the end of what is rechecked below
 * (a document added later may be read, as it would be by the next job anyway). Ids only ascend, so a page that repeats ids its predecessor delivered is trimmed; and when the
 * list changed while it was read (a count that moved, a page that vanished, fewer documents than counted), a
 * document that slid from one page into an earlier, already-read one can only sit between the last id of a page
 * and the first of the next, or after the last page: those ids are read again by `id__in`, so every document
 * present from start to end is seen exactly once.
 */
async function* pagedDocuments(
  transport: Transport,
  query: DocumentQuery,
  count: number,
  newestId: number,
  read: { ahead: number; pageSize: number },
): AsyncGenerator<DocumentPage> {
  const { ahead, pageSize } = read;
  const base = { fields: query.fields, truncateContent: query.truncateContent, fullPerms: query.fullPerms };
  function* requests(): Generator<PumpedRequest<ListPage<DmsDocument> | null>> {
    for (let page = 1; page <= Math.ceil(count / pageSize); page++)
      yield {
        rows: pageSize,
        send: (answered) =>
          documentPage(transport, documentListParams({ ...base, pageSize }, page), { page, pageSize }, answered),
      };
  }
  const gaps: Array<[number, number]> = [];
  let lastId = 0;
  let delivered = 0;
  let changed = false;
  for await (const body of pumpRequests(requests(), outstanding(ahead), heldRows(pageSize, ahead))) {
    if (body === null || body.count !== count) changed = true;
    const fresh = (body?.results ?? []).filter((d) => d.id > lastId);
    if (fresh.length === 0) continue;
    if (lastId > 0 && fresh[0].id > lastId + 1) gaps.push([lastId, fresh[0].id]);
    lastId = fresh[fresh.length - 1].id;
    delivered += fresh.length;
    yield { count, documents: fresh };
  }
  if (!changed && delivered === count) return;
  if (lastId < newestId) gaps.push([lastId, newestId + 1]);
  const unseen = gaps.reduce((sum, [after, before]) => sum + (before - after - 1), 0);
  if (unseen > MAX_RECHECKED_IDS)
    throw new DmsError(
      `the dms's document list changed by more than ${MAX_RECHECKED_IDS} ids while it was read; run the job again`,
      `GET ${DOCUMENTS}`,
      200,
    );
  for (const ids of unseenIds(gaps)) {
    const params = documentListParams({ ...base, pageSize: ids.length, filters: { id__in: ids.join(',') } }, 1);
    const body = await documentPage(transport, params, { page: 1, pageSize: ids.length });
    if (body && body.results.length > 0) yield { count, documents: body.results };
  }
}

/**
 * Streams the documents matching `query`; with `ahead` > 0 requests go out before the consumer asks for them (one
 * per dms worker of the read plan, at most `ahead`, and one queued), the rows held bounded by the memory budget
 * (read-plan.ts), as are the documents one request asks for. Without filters on API version 10 the documents are
 * read by plain pages (`pagedDocuments`); with filters, or on 2.x, from a snapshot of the matching ids in `id__in`
 * chunks.
 */
export async function* streamDocuments(
  transport: Transport,
  query: DocumentQuery,
  plan: ReadPlan,
): AsyncGenerator<DocumentPage> {
  const ahead = Math.min(plan.dmsWorkers, Math.max(0, Math.floor(query.ahead ?? 0)));
  const filtered = Object.keys(query.filters ?? {}).length > 0;
  // Newest first: one row gives the count and the newest id (the end of a read without snapshot).
  const probe = await idPage(transport, query, 1, 1, '-id');
  const { count, all } = probe;
  if (count === 0) {
    yield { count: 0, documents: [] };
    return;
  }
  // On 2.x every list answer carries `all`, every matching id: the probe's is the snapshot, and every later
  // request names its ids (`id__in`), so no other answer carries more ids than the page it asked for.
  const pageSize = (most: number) => readPageSize(plan, { count, workers: ahead, asked: query.pageSize, most });
  if (!filtered && !all) {
    yield* pagedDocuments(transport, query, count, probe.results[0]?.id ?? 0, {
      ahead,
      pageSize: pageSize(MAX_READ_PAGE),
    });
    return;
  }
  const chunkSize = pageSize(MAX_ID_CHUNK);
  const fetchChunk = async (chunk: number[], onAnswer: () => void): Promise<DmsDocument[]> => {
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
    const res = await transport.send({ method: 'GET', path: DOCUMENTS, query: params, idempotent: true, onAnswer });
    // A document deleted since the snapshot is simply absent from its chunk; any error (a 404 too) fails the read.
    return checkedPage<DmsDocument>(res.json, { base: transport.url, path: DOCUMENTS, page: 1, pageSize: chunk.length })
      .results;
  };
  const ids: number[] = all ? [...all].sort((a, b) => a - b) : [];
  if (!all) for await (const page of matchingIds(transport, query, count, plan)) ids.push(...page);
  // Chunks over the ids the snapshot holds (fewer than counted when some went).
  function* chunks(): Generator<PumpedRequest<DmsDocument[]>> {
    for (let start = 0; start < ids.length; start += chunkSize) {
      const chunk = ids.slice(start, start + chunkSize);
      yield { rows: chunk.length, send: (answered) => fetchChunk(chunk, answered) };
    }
  }
  for await (const documents of pumpRequests(chunks(), outstanding(ahead), heldRows(chunkSize, ahead)))
    yield { count, documents };
}
