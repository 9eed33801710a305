import { LOGGED_FIELDS, pyStr, snapshot, type DocumentSnapshot, type SimLogEntry } from './audit-log.js';
import type { SimDocument } from './sim-types.js';
import type { SimStore } from './store.js';

// What each kind of change writes to the audit log, following the code paths of Paperless-ngx 3.0.5 (and 2.16+):
// a save through the serializer (auditlog's signals), a bulk edit (`BulkEditView.post` logs one entry per document
// itself), notes (`DocumentViewSet.notes`), document creation. Entries use the store's clock.
//
// Who is named: auditlog's middleware picks the actor from `request.user` before DRF authenticates, so for a token
// (or Basic) request it is null. Only code that names the user itself logs it: `DocumentSerializer.update` wraps
// the save in `set_actor(self.user)`, `BulkEditView.post` passes `actor=user`. Everything else a request writes (a
// note's `log_create`, the values bulk `modify_custom_fields` stores, link mirrors outside the save) carries the
// middleware's actor: null from the API, the person in a browser session. Callers pass that one as `sessionActor`.

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
 * (a delete entry; the instance is gone, so the entry leaves the document's history with it). Answers whether
 * anything was logged.
 */
export function recordInstances(
  store: SimStore,
  before: DocumentSnapshot,
  doc: SimDocument,
  actor: number | null,
): boolean {
  const old = new Map(before.custom_fields.map((cf) => [cf.field, cf.value]));
  let logged = false;
  for (const cf of doc.custom_fields) {
    const existed = old.has(cf.field);
    if (existed && same(old.get(cf.field), cf.value)) continue;
    const instance = store.audit.instanceId(doc.id, cf.field);
    const changes = { value: [existed ? pyStr(old.get(cf.field)) : 'None', pyStr(cf.value)] };
    logged = true;
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
    logged = true;
  }
  return logged;
}

// `Tag.Meta.ordering = ("name",)`, compared as the database collation does (case-insensitively, like the tag lists).
const byTagName = (store: SimStore) => (a: number, b: number) => {
  const x = store.object('tags', a)?.name.toLowerCase() ?? '';
  const y = store.object('tags', b)?.name.toLowerCase() ?? '';
  return x < y ? -1 : x > y ? 1 : a - b;
};
const tagNames = (store: SimStore, ids: number[]) =>
  [...ids].sort(byTagName(store)).map((id) => store.object('tags', id)?.name ?? String(id));

export interface SaveOptions {
  /** Whether a custom-field instance's post_save moves the document's `modified` (`update_filename_and_move_files`). */
  instancesMoveModified: boolean;
}

/**
 * A save through `DocumentSerializer` (PATCH/PUT, or a person in the web UI), in Paperless's order: the document's
 * `update` entry with the changed fields as strings (`modified` excluded) at its pre_save, so stamped before the
 * save's `modified`; the save (`modified` = now; post_save's `update_filename_and_move_files` refreshes the instance,
 * then moves `modified` again in the database); the `tags` m2m entries (removed, then added, by tag name), each
 * followed by the same refresh and move; then the custom-field instances, which drf-writable-nested saves after the
 * document: their entries come after `modified` unless their post_save moves it too. Nothing changed → no entry,
 * but `modified` moves all the same. Answers the `modified` the saved instance holds in memory (one move behind the
 * stored one), which is what a 2.x PATCH answers.
 */
export function recordSave(
  store: SimStore,
  before: DocumentSnapshot,
  doc: SimDocument,
  actor: number | null,
  options: SaveOptions,
): string {
  const changes: Record<string, [string, string]> = {};
  for (const field of LOGGED_FIELDS) {
    if (!same(before.fields[field], doc[field])) changes[field] = [pyStr(before.fields[field]), pyStr(doc[field])];
  }
  if (Object.keys(changes).length > 0) add(store, { action: 'update', document: doc.id, changes, actor });
  let stored = store.now();
  let inMemory = stored;
  const refreshAndMove = () => {
    inMemory = stored;
    stored = store.now();
  };
  refreshAndMove();
  const removed = before.tags.filter((t) => !doc.tags.includes(t));
  const added = doc.tags.filter((t) => !before.tags.includes(t));
  for (const [operation, tags] of [
    ['delete', removed],
    ['add', added],
  ] as const) {
    if (tags.length === 0) continue;
    add(store, {
      action: 'update',
      document: doc.id,
      changes: { tags: { type: 'm2m', operation, objects: tagNames(store, tags) } },
      actor,
    });
    refreshAndMove();
  }
  // The instance's handler works on `instance.document`, not the serializer's object: nothing refreshed.
  if (recordInstances(store, before, doc, actor) && options.instancesMoveModified) stored = store.now();
  doc.modified = stored;
  return inMemory;
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

/**
 * `DocumentViewSet.notes`: `{"Note Added": ["None", id]}` / `{"Note Deleted": [id, "None"]}` by `log_create`
 * without an actor, so the middleware's: null for a token request, the person in a browser session.
 */
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
