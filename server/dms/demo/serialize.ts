import { createHash } from 'node:crypto';
import { documentPermissions, isShared } from './document-permissions.js';
import type { SimStore } from './store.js';
import { SIM_USER, type ObjectKind, type SimDocument, type SimObject } from './sim-types.js';
import type { SimUser } from './sim-users.js';

const TRUNCATE_AT = 550;

export interface DocumentView {
  /** PATCH/PUT responses (and `full_perms=true`) carry `permissions` instead of the two user flags. */
  fullPerms?: boolean;
  truncateContent?: boolean;
  fields?: Set<string> | null;
  /** Only the detail view computes duplicates; lists always show []. */
  detail?: boolean;
  /** Whom `user_can_change` and `is_shared_by_requester` are computed for (default: the superuser anna). */
  user?: Pick<SimUser, 'id' | 'mayChange'>;
  /** 3.0's `duplicate_documents`, `root_document` and `versions` (default true; 2.x has none of them). */
  v3Fields?: boolean;
}

const PERMISSION_KEYS = ['permissions', 'user_can_change', 'is_shared_by_requester'];
const FIXTURE_CALLER: Pick<SimUser, 'id' | 'mayChange'> = { id: SIM_USER.id, mayChange: () => true };

function archivedFileName(store: SimStore, doc: SimDocument): string | null {
  if (!doc.has_archive) return null;
  const correspondent =
    doc.correspondent == null ? '' : (store.object('correspondents', doc.correspondent)?.name ?? '');
  const name = [doc.created, correspondent, doc.title].filter((p) => p !== '').join(' ');
  return `${name.replace(/[/\\:*?"<>|]/g, '_')}.pdf`;
}

/** A document in Paperless's key order (§4.2). */
export function documentToWire(store: SimStore, doc: SimDocument, view: DocumentView = {}): Record<string, unknown> {
  const tagOrder = (id: number) => store.object('tags', id)?.name.toLowerCase() ?? '';
  const wire: Record<string, unknown> = {
    id: doc.id,
    correspondent: doc.correspondent,
    document_type: doc.document_type,
    storage_path: doc.storage_path,
    title: doc.title,
    content: view.truncateContent ? doc.content.slice(0, TRUNCATE_AT) : doc.content,
    // Paperless returns tags in tag-name order.
    tags: [...doc.tags].sort((a, b) => (tagOrder(a) < tagOrder(b) ? -1 : tagOrder(a) > tagOrder(b) ? 1 : 0)),
    created: doc.created,
    created_date: doc.created,
    modified: doc.modified,
    added: doc.added,
    deleted_at: null,
    archive_serial_number: doc.archive_serial_number,
    original_file_name: doc.original_file_name,
    archived_file_name: archivedFileName(store, doc),
    duplicate_documents: [],
    owner: doc.owner,
  };
  if (view.v3Fields === false) delete wire.duplicate_documents;
  const caller = view.user ?? FIXTURE_CALLER;
  // OwnedObjectSerializer drops `user_can_change` and then `is_shared_by_requester` for full perms, `permissions`
  // otherwise; it does so after `fields=` dropped the unasked ones, and stops at the first one already gone.
  const shown = new Set(PERMISSION_KEYS.filter((key) => !view.fields || view.fields.has(key)));
  if (!view.fullPerms) shown.delete('permissions');
  else if (shown.delete('user_can_change')) shown.delete('is_shared_by_requester');
  if (shown.has('permissions')) wire.permissions = documentPermissions(store, doc.id);
  if (shown.has('user_can_change')) wire.user_can_change = caller.mayChange('documents', doc);
  if (shown.has('is_shared_by_requester'))
    wire.is_shared_by_requester = doc.owner === caller.id && isShared(store, doc.id);
  Object.assign(wire, {
    notes: structuredClone(doc.notes),
    custom_fields: doc.custom_fields.map((cf) => ({ value: cf.value, field: cf.field })),
    page_count: doc.page_count,
    mime_type: doc.mime_type,
    root_document: null,
    versions: doc.versions ? structuredClone(doc.versions) : [rootVersion(doc)],
  });
  if (view.v3Fields === false) {
    delete wire.root_document;
    delete wire.versions;
  }
  if (!view.fields) return wire;
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(wire)) if (view.fields.has(key)) picked[key] = wire[key];
  return picked;
}

function rootVersion(doc: SimDocument) {
  const checksum = createHash('sha256').update(`sim-document-${doc.id}`).digest('hex');
  return { id: doc.id, added: doc.added, version_label: null, checksum, is_root: true };
}

/** Number of documents referring to each object of a kind, in one pass over the documents. */
export function documentCounts(store: SimStore, kind: ObjectKind): Map<number, number> {
  const counts = new Map<number, number>();
  const bump = (id: number | null) => {
    if (id != null) counts.set(id, (counts.get(id) ?? 0) + 1);
  };
  for (const doc of store.documents.values()) {
    if (kind === 'tags') doc.tags.forEach(bump);
    else if (kind === 'custom_fields') doc.custom_fields.forEach((cf) => bump(cf.field));
    else if (kind === 'correspondents') bump(doc.correspondent);
    else if (kind === 'document_types') bump(doc.document_type);
    else bump(doc.storage_path);
  }
  return counts;
}

/** A vocabulary object in Paperless's key order, with `document_count` (not on create) and tag `children`. */
export function objectToWire(
  store: SimStore,
  kind: ObjectKind,
  object: SimObject,
  counts: Map<number, number> | null,
): Record<string, unknown> {
  const wire: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    if (key === 'owner' && counts) wire.document_count = counts.get(object.id) ?? 0;
    if (kind === 'custom_fields' && key === 'document_count') continue;
    wire[key] = structuredClone(value);
  }
  if (kind === 'custom_fields' && counts) wire.document_count = counts.get(object.id) ?? 0;
  if (kind !== 'custom_fields') wire.user_can_change = true;
  if (kind === 'tags' && 'parent' in object) {
    // Move parent after user_can_change, as Paperless orders them, then nest the children.
    const parent = wire.parent ?? null;
    delete wire.parent;
    wire.parent = parent;
    wire.children = store.objects.tags
      .filter((t) => t.parent === object.id)
      .map((child) => objectToWire(store, kind, child, counts));
  }
  return wire;
}
