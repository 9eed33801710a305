import type { Transport } from './http-transport.js';
import type { DmsCustomField, DmsNamedObject, DmsTag, DmsVocabulary } from './types.js';

const PAGE_SIZE = 1000;

async function listAll<T>(transport: Transport, path: string): Promise<T[]> {
  const all: T[] = [];
  for (let page = 1; ; page++) {
    const query = new URLSearchParams({ page: String(page), page_size: String(PAGE_SIZE) });
    const res = await transport.send({ method: 'GET', path, query, idempotent: true });
    const body = res.json as { next: string | null; results: T[] };
    all.push(...body.results);
    if (!body.next || body.results.length === 0) return all;
  }
}

// Keep only what the service uses, so the cache stays small and the engine sees one shape.
function named(o: DmsNamedObject): DmsNamedObject {
  return { id: o.id, name: o.name, owner: o.owner ?? null };
}

/** Lists tags, correspondents, document types, storage paths and custom fields (all pages). */
export async function fetchVocabulary(transport: Transport): Promise<DmsVocabulary> {
  const [tags, correspondents, documentTypes, storagePaths, customFields] = await Promise.all([
    listAll<DmsTag>(transport, '/api/tags/'),
    listAll<DmsNamedObject>(transport, '/api/correspondents/'),
    listAll<DmsNamedObject>(transport, '/api/document_types/'),
    listAll<DmsNamedObject>(transport, '/api/storage_paths/'),
    listAll<DmsCustomField>(transport, '/api/custom_fields/'),
  ]);
  return {
    tags: tags.map((t) => ({ ...named(t), is_inbox_tag: t.is_inbox_tag, parent: t.parent ?? null, color: t.color })),
    correspondents: correspondents.map(named),
    document_types: documentTypes.map(named),
    storage_paths: storagePaths.map(named),
    custom_fields: customFields.map((f) => ({
      id: f.id,
      name: f.name,
      data_type: f.data_type,
      extra_data: { select_options: f.extra_data?.select_options ?? [], default_currency: f.extra_data?.default_currency ?? null },
    })),
  };
}
