import { DEFAULT_PAGE_SIZE, documentListParams } from './document-query.js';
import type { Transport } from './http-transport.js';
import type { DmsDocument, DocumentPage, DocumentQuery } from './types.js';

// Page numbers shift when documents stop matching the filter mid-scan (a job that removes the very tag it
// filtered on would skip every other page). So the scan first snapshots the matching ids (8 bytes each),
// then fetches the documents in id chunks: every document matching at the start is seen exactly once.

const ID_PAGE_SIZE = 10_000;
// Keeps `id__in=…` well under the 8 KB request-line limit of common proxies.
const MAX_CHUNK = 500;

interface PageBody<T> {
  count: number;
  next: string | null;
  results: T[];
}

async function matchingIds(transport: Transport, query: DocumentQuery): Promise<number[]> {
  const ids: number[] = [];
  for (let page = 1; ; page++) {
    const params = documentListParams({ filters: query.filters, fields: ['id'], pageSize: ID_PAGE_SIZE }, page);
    const res = await transport.send({ method: 'GET', path: '/api/documents/', query: params, idempotent: true });
    const body = res.json as PageBody<{ id: number }>;
    for (const doc of body.results) ids.push(doc.id);
    if (!body.next || body.results.length === 0) return ids;
  }
}

/** Streams the documents matching `query`, one chunk per request, fetched only when the consumer asks. */
export async function* streamDocuments(transport: Transport, query: DocumentQuery): AsyncGenerator<DocumentPage> {
  const ids = await matchingIds(transport, query);
  if (ids.length === 0) {
    yield { count: 0, documents: [] };
    return;
  }
  const size = Math.min(MAX_CHUNK, Math.max(1, Math.floor(query.pageSize ?? DEFAULT_PAGE_SIZE)));
  for (let start = 0; start < ids.length; start += size) {
    const chunk = ids.slice(start, start + size);
    const params = documentListParams(
      { fields: query.fields, truncateContent: query.truncateContent, pageSize: chunk.length, filters: { id__in: chunk.join(',') } },
      1,
    );
    const res = await transport.send({ method: 'GET', path: '/api/documents/', query: params, idempotent: true });
    // A document deleted since the snapshot is simply absent from its chunk.
    yield { count: ids.length, documents: (res.json as PageBody<DmsDocument>).results };
  }
}
