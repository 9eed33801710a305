/**
 * Paperless's trash (2.10+): DELETE of a document and the bulk `delete` move it here; `GET /api/trash/` lists
 * it and `POST /api/trash/ {documents, action: restore | empty}` brings it back or removes it for good
 * (TrashView and TrashSerializer in documents/views.py and serialisers.py). Trash and restore fire no
 * "Document Updated". Kept beside the store (by store) so the store itself stays as it is.
 */
import { fail, json, type SimContext, type SimHandler } from './http-kit.js';
import { pageRequest, paginate } from './pagination.js';
import { documentToWire } from './serialize.js';
import type { SimDocument } from './sim-types.js';
import type { SimStore } from './store.js';

const trashes = new WeakMap<SimStore, Map<number, SimDocument>>();

function trashOf(store: SimStore): Map<number, SimDocument> {
  let trash = trashes.get(store);
  if (!trash) trashes.set(store, (trash = new Map<number, SimDocument>()));
  return trash;
}

/** What DELETE and the bulk `delete` do: the document leaves the list, keeps its ASN taken, and can be restored. */
export function moveToTrash(store: SimStore, doc: SimDocument): void {
  if (doc.archive_serial_number !== null) store.trashedAsns.add(doc.archive_serial_number);
  store.documents.delete(doc.id);
  trashOf(store).set(doc.id, doc);
}

/** The documents in the trash (for tests and the control routes). */
export function trashedDocuments(store: SimStore): SimDocument[] {
  return [...trashOf(store).values()];
}

// `has_perms_owner_aware(user, "delete_document", doc)`: the simulator keeps no delete grants.
const mayDelete = (ctx: SimContext, doc: SimDocument) =>
  ctx.user.superuser || doc.owner === null || doc.owner === ctx.user.id;

/** `GET` and `POST /api/trash/`. */
export const trashHandler: SimHandler = async (ctx) => {
  const store = ctx.store;
  const bin = trashOf(store);
  if (ctx.method === 'GET') {
    const docs = [...bin.values()]
      .filter((d) => mayDelete(ctx, d) || ctx.user.sees('documents', d))
      .sort((a, b) => a.id - b.id);
    const request = pageRequest(ctx.params);
    if (!request) return json(404, { detail: 'Invalid page.' });
    const page = paginate(
      docs.length,
      (s, e) => docs.slice(s, e).map((d) => documentToWire(store, d, { user: ctx.user })),
      request,
      `${ctx.origin}/api/trash/`,
      ctx.params,
    );
    return page
      ? json(200, { count: page.count, next: page.next, previous: page.previous, results: page.results })
      : json(404, { detail: 'Invalid page.' });
  }
  const body = (await ctx.json()) as { documents?: unknown; action?: unknown } | null;
  const action = body?.action;
  if (action !== 'restore' && action !== 'empty') {
    return fail(400, {
      action: [action === undefined ? 'This field is required.' : `"${String(action)}" is not a valid choice.`],
    });
  }
  let ids: number[];
  if (body?.documents === undefined) ids = [...bin.keys()];
  else {
    if (!Array.isArray(body.documents) || body.documents.some((d) => !Number.isInteger(d)))
      return fail(400, { documents: ['Expected a list of items.'] });
    ids = body.documents as number[];
    if (ids.some((id) => !bin.has(id)))
      return fail(400, { documents: ['Some documents in the list have not yet been deleted.'] });
  }
  for (const id of ids) {
    const doc = bin.get(id);
    if (doc && !mayDelete(ctx, doc))
      return { status: 403, body: 'Insufficient permissions', headers: { 'content-type': 'text/html; charset=utf-8' } };
  }
  for (const id of ids) {
    const doc = bin.get(id);
    if (!doc) continue;
    bin.delete(id);
    if (doc.archive_serial_number !== null) store.trashedAsns.delete(doc.archive_serial_number);
    if (action === 'restore') store.documents.set(id, doc);
  }
  return json(200, { result: 'OK', doc_ids: ids });
};
