import { LOGGED_FIELDS, pyStr, snapshot, type DocumentSnapshot, type SimLogEntry } from './audit-log.js';
import type { SimDocument } from './sim-types.js';
import type { SimStore } from './store.js';

// What each kind of change writes to the audit log, following the code paths of Paperless-ngx 3.0.5 (and 2.16+):
// a save through the serializer (auditlog's middleware and signals), a bulk edit (`BulkEditView.post` logs one entry
// per document itself), notes (`DocumentViewSet.notes`), document creation. Entries use the store's clock.

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function add(
  store: SimStore,
  entry: Omit<SimLogEntry, 'id' | 'timestamp' | 'additional_data' | 'repr' | 'instance'> & Partial<SimLogEntry>,
): void {
  if (!store.audit.enabled) return;
  store.audit.add({
    timestamp: store.now(),
    instance: null,
    repr: `Document ${entry.document}`,
    additional_data: null,
    ...entry,
  });
}

/** `CustomFieldInstance.__str__`: "<field name> : <value>", a select option by its label. */
function instanceRepr(store: SimStore, cf: { field: number; value: unknown }): string {
  const field = store.object('custom_fields', cf.field);
  const options = (field?.extra_data as { select_options?: Array<{ id: string; label: string }> } | undefined)
    ?.select_options;
  const value =
    field?.data_type === 'select' && cf.value != null
      ? (options?.find((o) => o.id === cf.value)?.label ?? null)
      : cf.value;
  return `${field?.name ?? cf.field} : ${pyStr(value)}`;
}

/**
 * Custom-field instances saved (`update_or_create`: create or update entry when the value changed) or deleted
 * (a delete entry; the instance is gone, so the entry leaves the document's history with it).
 */
export function recordInstances(
  store: SimStore,
  before: DocumentSnapshot,
  doc: SimDocument,
  actor: number | null,
): void {
  const old = new Map(before.custom_fields.map((cf) => [cf.field, cf.value]));
  for (const cf of doc.custom_fields) {
    const existed = old.has(cf.field);
    if (existed && same(old.get(cf.field), cf.value)) continue;
    const instance = store.audit.instanceId(doc.id, cf.field);
    const changes = { value: [existed ? pyStr(old.get(cf.field)) : 'None', pyStr(cf.value)] };
    add(store, {
      action: existed ? 'update' : 'create',
      document: doc.id,
      instance,
      changes,
      repr: instanceRepr(store, cf),
      actor,
    });
  }
  for (const [field, value] of old) {
    if (doc.custom_fields.some((cf) => cf.field === field)) continue;
    const instance = store.audit.instanceId(doc.id, field);
    add(store, {
      action: 'delete',
      document: doc.id,
      instance,
      changes: { value: [pyStr(value), 'None'] },
      repr: instanceRepr(store, { field, value }),
      actor,
    });
    store.audit.dropInstance(doc.id, field);
  }
}

// `Tag.Meta.ordering = ("name",)`, compared as the database collation does (case-insensitively, like the tag lists).
const byTagName = (store: SimStore) => (a: number, b: number) => {
  const x = store.object('tags', a)?.name.toLowerCase() ?? '';
  const y = store.object('tags', b)?.name.toLowerCase() ?? '';
  return x < y ? -1 : x > y ? 1 : a - b;
};
const tagNames = (store: SimStore, ids: number[]) =>
  [...ids].sort(byTagName(store)).map((id) => store.object('tags', id)?.name ?? String(id));

/**
 * A save through `DocumentSerializer` (PATCH/PUT, or a person in the web UI): one update entry with the changed
 * fields as strings (`modified` excluded), then `tags` as m2m entries (removed, then added, by tag name), then
 * the custom-field instances. Nothing changed → no entry.
 */
export function recordSave(store: SimStore, before: DocumentSnapshot, doc: SimDocument, actor: number | null): void {
  const changes: Record<string, [string, string]> = {};
  for (const field of LOGGED_FIELDS) {
    if (!same(before.fields[field], doc[field])) changes[field] = [pyStr(before.fields[field]), pyStr(doc[field])];
  }
  if (Object.keys(changes).length > 0) add(store, { action: 'update', document: doc.id, changes, actor });
  const removed = before.tags.filter((t) => !doc.tags.includes(t));
  const added = doc.tags.filter((t) => !before.tags.includes(t));
  if (removed.length > 0)
    add(store, {
      action: 'update',
      document: doc.id,
      changes: { tags: { type: 'm2m', operation: 'delete', objects: tagNames(store, removed) } },
      actor,
    });
  if (added.length > 0)
    add(store, {
      action: 'update',
      document: doc.id,
      changes: { tags: { type: 'm2m', operation: 'add', objects: tagNames(store, added) } },
      actor,
    });
  recordInstances(store, before, doc, actor);
}

/** A document made by consumption: auditlog's create entry, no actor (a Celery task). */
export function recordCreate(store: SimStore, doc: SimDocument): void {
  const changes: Record<string, [string, string]> = {};
  for (const field of LOGGED_FIELDS)
    if (doc[field] !== null && doc[field] !== '') changes[field] = ['None', pyStr(doc[field])];
  add(store, { action: 'create', document: doc.id, changes, actor: null });
  for (const cf of doc.custom_fields) {
    add(store, {
      action: 'create',
      document: doc.id,
      instance: store.audit.instanceId(doc.id, cf.field),
      changes: {},
      repr: instanceRepr(store, cf),
      actor: null,
    });
  }
}

/** `DocumentViewSet.notes`: `{"Note Added": ["None", id]}` / `{"Note Deleted": [id, "None"]}`, logged for the request's user. */
export function recordNote(
  store: SimStore,
  document: number,
  noteId: number,
  added: boolean,
  actor: number | null,
): void {
  add(store, {
    action: 'update',
    document,
    changes: added ? { 'Note Added': ['None', noteId] } : { 'Note Deleted': [noteId, 'None'] },
    actor,
  });
}

/** `BulkEditView.MODIFIED_FIELD_BY_METHOD`: the methods that log an entry, and the field it names. */
export const BULK_LOGGED_FIELD: Record<
  string,
  'correspondent' | 'document_type' | 'storage_path' | 'tags' | 'custom_fields' | undefined
> = {
  set_correspondent: 'correspondent',
  set_document_type: 'document_type',
  set_storage_path: 'storage_path',
  add_tag: 'tags',
  remove_tag: 'tags',
  modify_tags: 'tags',
  modify_custom_fields: 'custom_fields',
};

export type BulkSnapshot = Map<number, DocumentSnapshot>;

export function bulkSnapshot(docs: SimDocument[]): BulkSnapshot {
  return new Map(docs.map((doc) => [doc.id, snapshot(doc)]));
}

/**
 * `BulkEditView.post`: one entry per requested document, changed or not, `actor=user`, `additional_data.reason =
 * "Bulk edit: <method>"`. The old value comes from `Document.objects.values(..., "tags", "custom_fields")`, one row
 * per tag and instance of which the last wins: a single id (or null), not a list; the new value is the list of pks.
 */
export function recordBulk(
  store: SimStore,
  before: BulkSnapshot,
  docs: SimDocument[],
  method: string,
  actor: number | null,
): void {
  const field = BULK_LOGGED_FIELD[method];
  if (!field) return;
  const instances = (doc: { id: number }, cfs: Array<{ field: number }>) =>
    cfs.map((cf) => store.audit.instanceId(doc.id, cf.field)).sort((a, b) => a - b);
  for (const doc of docs) {
    const old = before.get(doc.id)!;
    let change: [unknown, unknown];
    if (field === 'tags') {
      change = [old.tags.length > 0 ? Math.max(...old.tags) : null, [...doc.tags].sort(byTagName(store))];
    } else if (field === 'custom_fields') {
      const oldIds = old.custom_fields.map((cf) => store.audit.instanceId(doc.id, cf.field));
      change = [oldIds.length > 0 ? Math.max(...oldIds) : null, instances(doc, doc.custom_fields)];
    } else change = [old.fields[field], doc[field]];
    add(store, {
      action: 'update',
      document: doc.id,
      changes: { [field]: change },
      actor,
      additional_data: { reason: `Bulk edit: ${method}` },
    });
  }
}

/** One entry of `GET /api/documents/{id}/history/`. */
export interface HistoryEntry {
  id: number;
  timestamp: string;
  action: string;
  changes: Record<string, unknown>;
  actor: { id: number; username: string } | null;
}

/**
 * `DocumentViewSet.history`: the document's entries, then those of its current custom-field instances with
 * `changes.custom_fields = {type, field, value}` split from the instance's repr at ':', all sorted newest first.
 */
export function historyOf(store: SimStore, doc: SimDocument): HistoryEntry[] {
  const current = new Set(doc.custom_fields.map((cf) => store.audit.instanceId(doc.id, cf.field)));
  const actor = (id: number | null) => {
    const account = id === null ? undefined : store.account(id);
    return account ? { id: account.id, username: account.username } : null;
  };
  // DRF renders the aware UTC datetime with microseconds and a Z.
  const timestamp = (iso: string) => iso.replace(/\.(\d{3})Z$/, '.$1000Z');
  const own = store.audit.entries.filter((e) => e.document === doc.id && e.instance === null);
  const fields = store.audit.entries.filter((e) => e.instance !== null && current.has(e.instance));
  const rendered = [
    ...own.map((e) => ({
      id: e.id,
      timestamp: timestamp(e.timestamp),
      action: e.action,
      changes: e.changes,
      actor: actor(e.actor),
    })),
    ...fields.map((e) => {
      const parts = e.repr.split(':');
      return {
        id: e.id,
        timestamp: timestamp(e.timestamp),
        action: e.action,
        changes: { custom_fields: { type: 'custom_field', field: parts[0].trim(), value: (parts[1] ?? '').trim() } },
        actor: actor(e.actor),
      };
    }),
  ];
  return rendered.sort((a, b) => (a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : 0));
}
