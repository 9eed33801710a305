import type { DmsClient } from './types.js';

export interface DocumentHit {
  id: number;
  title: string;
  created: string | null;
}

/**
 * The documents a picker offers: the most recently added first (Paperless's own list sorts by `created` instead),
 * those whose title contains `text` when there is one. One page only: a picker never scans the whole dms.
 */
export async function findDocumentsByTitle(
  dms: DmsClient,
  text: string,
  max = 20,
): Promise<{ count: number; documents: DocumentHit[] }> {
  const page = await dms.findDocuments({
    filters: text ? { title__icontains: text } : {},
    ordering: '-added',
    pageSize: max,
    fields: ['id', 'title', 'created'],
  });
  return {
    count: page.count,
    documents: page.documents.slice(0, max).map((d) => ({ id: d.id, title: d.title, created: d.created ?? null })),
  };
}

/** Titles of these documents (at most 200), one request: lists of traces and jobs name documents, never a bare id. */
export async function documentTitles(dms: DmsClient, ids: number[]): Promise<Record<number, string>> {
  const wanted = [...new Set(ids)].slice(0, 200);
  if (wanted.length === 0) return {};
  // The ids are known: one `id__in` page, no count probe or id snapshot as a streamed read takes.
  const page = await dms.findDocuments({
    filters: { id__in: wanted.join(',') },
    ordering: 'id',
    pageSize: wanted.length,
    fields: ['id', 'title'],
  });
  return Object.fromEntries(page.documents.map((d) => [d.id, d.title]));
}
