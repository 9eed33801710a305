import { createTagTree, tagsAfterModify } from '../tag-hierarchy.js';
import { SIM_PROFILES, type SimBehaviour } from './profiles.js';
import { mayChangeTargets } from './document-write.js';
import { applyPermissionUpdate, validatePermissionUpdate } from './document-permissions.js';
import { fail, SimHttpError, type SimHooks } from './http-kit.js';
import type { SimUser } from './sim-users.js';
import type { SimStore } from './store.js';
import type { ObjectKind, SimDocument, SimObject } from './sim-types.js';
import { documentLinkError, instancesMoveModified } from './document-write.js';
import { snapshot } from './audit-log.js';
import { bulkSnapshot, recordBulk, recordInstances } from './audit-record.js';
import { reflectDoclinks, removeDoclink } from './doc-links.js';
import { moveToTrash } from './trash.js';
import { checkCustomFieldValue } from './value-rules.js';

const METHODS = [
  'set_correspondent',
  'set_document_type',
  'set_storage_path',
  'add_tag',
  'remove_tag',
  'modify_tags',
  'modify_custom_fields',
  'set_permissions',
  'delete',
] as const;

type Method = (typeof METHODS)[number];
/** Before 2.19.0 a tag has no ancestors or descendants. */
const FLAT = createTagTree([]);
const RELATION: Record<string, ['correspondent' | 'document_type' | 'storage_path', ObjectKind, string]> = {
  set_correspondent: ['correspondent', 'correspondents', 'Correspondent'],
  set_document_type: ['document_type', 'document_types', 'Document type'],
  set_storage_path: ['storage_path', 'storage_paths', 'Storage path'],
};

function idList(value: unknown): number[] | null {
  return Array.isArray(value) && value.every((v) => Number.isInteger(v)) ? (value as number[]) : null;
}

/**
 * `_has_document_permissions` (documents/views.py): a non-superuser needs `change_document` and a change grant on
 * every document (owner, unowned, or granted); `set_permissions` and `delete` also need it to own each one, and
 * `delete` needs `delete_document`. Paperless answers this after validating the request, in plain text.
 */
function authorize(user: SimUser, method: Method, targets: SimDocument[]): void {
  if (user.superuser) return;
  const owns = targets.every((doc) => doc.owner === null || doc.owner === user.id);
  let allowed = user.has('change_document') && targets.every((doc) => user.mayChange('documents', doc));
  if (method === 'set_permissions' || method === 'delete') allowed &&= owns;
  if (method === 'delete') allowed &&= user.has('delete_document');
  if (!allowed) throw new SimHttpError({ status: 403, text: 'Insufficient permissions' });
}

export interface BulkOptions {
  /**
   * The auditlog middleware's actor, for what the method saves outside `BulkEditView.post`'s own entry (custom-field
   * values, link mirrors): null (default) for a token or Basic request, the person in a browser session.
   */
  sessionActor?: number | null;
  /** The release's behaviour (default 3.0.5). */
  behaviour?: SimBehaviour;
}

/** `BulkEditView.post` catches any exception of the method: 400, plain text labelled text/html, work done so far kept. */
const BULK_FAILED = { status: 400, text: 'Error performing bulk edit, check logs for more detail.' };

/**
 * `POST /api/documents/bulk_edit/` (§4.8): queryset-style updates within the request, then one entry per document
 * for the user (`BulkEditView.post`, `actor=user`), except for `set_permissions` and `delete`. The method queues
 * `bulk_update_documents` for the affected documents: "Document Updated" and `modified` follow after the answer.
 */
export function bulkEdit(
  store: SimStore,
  body: unknown,
  hooks: SimHooks,
  user: SimUser,
  options: BulkOptions = {},
): void {
  const sessionActor = options.sessionActor ?? null;
  const behaviour = options.behaviour ?? SIM_PROFILES['3.0'].behaviour;
  const input = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const method = input.method as Method;
  if (!METHODS.includes(method)) fail(400, { method: [`"${String(input.method)}" is not a valid choice.`] });
  const ids = idList(input.documents);
  if (!ids) fail(400, { documents: ['This field is required.'] });
  const docs = (ids as number[]).map((id) => store.getDocument(id));
  if (docs.some((d) => !d) || new Set(ids).size !== ids!.length) {
    fail(400, { documents: ["Some documents in documents don't exist or were specified twice."] });
  }
  const params = (typeof input.parameters === 'object' && input.parameters !== null ? input.parameters : {}) as Record<
    string,
    unknown
  >;
  const targets = docs as SimDocument[];
  const touched: SimDocument[] = [];
  const allow = () => authorize(user, method, targets);
  const before = bulkSnapshot(targets);

  if (method in RELATION) {
    const [key, kind, label] = RELATION[method];
    const value = params[key];
    if (value !== null && (!Number.isInteger(value) || !store.object(kind, value as number))) {
      fail(400, { non_field_errors: [`${label} does not exist`] });
    }
    allow();
    for (const doc of targets) {
      if (doc[key] !== value) {
        doc[key] = value as number | null;
        touched.push(doc);
      }
    }
  } else if (method === 'add_tag' || method === 'remove_tag') {
    const tag = params.tag;
    if (!Number.isInteger(tag) || !store.object('tags', tag as number))
      fail(400, { non_field_errors: ['Tag does not exist'] });
    allow();
    const tree = behaviour.tagHierarchy ? store.tagTree() : FLAT;
    const [add, remove] = method === 'add_tag' ? [[tag as number], []] : [[], [tag as number]];
    for (const doc of targets) {
      const next = tagsAfterModify(tree, doc.tags, add, remove);
      if (next.length === doc.tags.length && next.every((t) => doc.tags.includes(t))) continue;
      doc.tags = next;
      touched.push(doc);
    }
  } else if (method === 'modify_tags') {
    if (!('add_tags' in params)) fail(400, { non_field_errors: ['add_tags not specified'] });
    if (!('remove_tags' in params)) fail(400, { non_field_errors: ['remove_tags not specified'] });
    const add = idList(params.add_tags);
    const remove = idList(params.remove_tags);
    if (!add || !remove || [...add, ...remove].some((id) => !store.object('tags', id)))
      fail(400, { non_field_errors: ["Some tags in add_tags or remove_tags don't exist"] });
    allow();
    const tree = behaviour.tagHierarchy ? store.tagTree() : FLAT;
    for (const doc of targets) {
      doc.tags = tagsAfterModify(tree, doc.tags, add!, remove!);
      touched.push(doc);
    }
  } else if (method === 'modify_custom_fields') {
    modifyCustomFields(store, targets, params, allow, { actor: sessionActor, behaviour, user });
    touched.push(...targets);
  } else if (method === 'set_permissions') {
    setPermissions(store, targets, params, allow);
    touched.push(...targets);
  } else if (method === 'delete') {
    allow();
    for (const doc of targets) moveToTrash(store, doc);
    return;
  }
  recordBulk(store, before, targets, method, user.id);
  for (const doc of targets) hooks.afterSave?.(doc.id);
  const affected = touched.map((doc) => doc.id);
  (hooks.queueTask ?? ((_name, run) => setImmediate(run)))('bulk_update_documents', () =>
    bulkUpdateDocuments(store, affected, hooks),
  );
}

/**
 * `bulk_update_documents` (documents/tasks.py), a Celery task: for each document still there, in the queryset's
 * order (`Document.Meta.ordering = ("-created",)`), `document_updated` (the "Document Updated" workflows, whose
 * webhook action queues one delivery per document), then `post_save`, whose `update_filename_and_move_files` sets
 * `modified = now()` (a queryset update: no audit entry, no further signal).
 */
export function bulkUpdateDocuments(store: SimStore, ids: number[], hooks: SimHooks): void {
  const docs = ids.map((id) => store.getDocument(id)).filter((doc): doc is SimDocument => doc !== undefined);
  docs.sort((a, b) => (a.created < b.created ? 1 : a.created > b.created ? -1 : b.id - a.id));
  for (const doc of docs) {
    hooks.documentUpdated(doc.id);
    doc.modified = store.now();
  }
}

/**
 * `modify_custom_fields` (bulk_edit.py, 2.14+): a `{field_id: value}` mapping sets values, a bare list of ids
 * attaches the fields with no value (an existing value is cleared, as `update_or_create` does); then the
 * `remove_custom_fields` are detached. Only the named values are validated: a document's other fields, such as
 * a document link to a trashed document, are never looked at.
 */
function modifyCustomFields(
  store: SimStore,
  targets: SimDocument[],
  params: Record<string, unknown>,
  allow: () => void,
  { actor, behaviour, user }: { actor: number | null; behaviour: SimBehaviour; user: SimUser },
): void {
  if (!('add_custom_fields' in params)) fail(400, { non_field_errors: ['add_custom_fields not specified'] });
  if (!('remove_custom_fields' in params)) fail(400, { non_field_errors: ['remove_custom_fields not specified'] });
  const add = params.add_custom_fields;
  const remove = idList(params.remove_custom_fields);
  if (!remove)
    fail(400, { non_field_errors: ['remove_custom_fields must be a list of integers or a dict of id:value pairs'] });
  const entries: Array<[number, unknown]> = Array.isArray(add)
    ? add.map((id) => [Number(id), null])
    : Object.entries((add ?? {}) as Record<string, unknown>).map(([id, value]) => [Number(id), value]);
  for (const [name, ids] of [
    ['add_custom_fields', entries.map(([id]) => id)],
    ['remove_custom_fields', remove!],
  ] as const) {
    if (ids.some((id) => !store.object('custom_fields', id)) || new Set(ids).size !== ids.length) {
      fail(400, { non_field_errors: [`Some custom fields in ${name} don't exist or were specified twice.`] });
    }
  }
  const stored = validateValues(store, entries, behaviour, user);
  allow();
  const isLink = (id: number) => store.object('custom_fields', id)!.data_type === 'documentlink';
  const befores = new Map(targets.map((doc) => [doc.id, snapshot(doc)]));
  const saved = new Set<number>();
  try {
    for (const [id, value] of stored) {
      const field = store.object('custom_fields', id)!;
      for (const doc of targets) {
        // 2.16–2.18 test `doc_id in value` for every document-link value, null included: a TypeError.
        if (isLink(id) && value === null && behaviour.bulkNullLinkFails) throw new SimHttpError(BULK_FAILED);
        // Paperless skips a document-link value that would link a document to itself.
        if (Array.isArray(value) && value.includes(doc.id) && isLink(id)) continue;
        // Unvalidated values (before 3.0.5) reach the database, which refuses some types.
        if (!behaviour.bulkValuesValidated && !databaseTakes(field, value)) throw new SimHttpError(BULK_FAILED);
        const existing = doc.custom_fields.find((cf) => cf.field === id);
        if (existing) existing.value = value;
        else doc.custom_fields.push({ value, field: id });
        saved.add(doc.id);
        if (!isLink(id)) continue;
        // Before 2.20.13 a link to a missing document is stored, then mirroring it breaks the foreign key.
        if (Array.isArray(value) && value.some((target) => !store.getDocument(target as number)))
          throw new SimHttpError(BULK_FAILED);
        // Mirrored after the value is stored, so targets the old value named keep their link back.
        reflectDoclinks(store, doc.id, id, value as number[] | null, actor);
      }
    }
    for (const doc of targets) {
      for (const cf of doc.custom_fields) {
        if (remove!.includes(cf.field) && isLink(cf.field) && Array.isArray(cf.value)) {
          for (const target of cf.value as number[]) removeDoclink(store, doc.id, cf.field, target, actor);
        }
      }
    }
    for (const doc of targets) doc.custom_fields = doc.custom_fields.filter((cf) => !remove!.includes(cf.field));
  } finally {
    // What was saved before a failure stays saved, and logged. `update_or_create` saves even an unchanged value,
    // and its post_save may move `modified` within the request.
    for (const doc of targets) {
      recordInstances(store, befores.get(doc.id)!, doc, actor);
      if (saved.has(doc.id) && instancesMoveModified(store, doc, behaviour)) doc.modified = store.now();
    }
  }
}

/**
 * The values as the release validates them before anything is written: 3.0.5 runs every value through
 * `CustomFieldInstanceSerializer` (errors keyed by field id); 2.20.13–3.0.4 check only document-link values
 * (`validate_documentlink_targets`: a list of existing documents the user may change); earlier releases nothing.
 */
function validateValues(
  store: SimStore,
  entries: Array<[number, unknown]>,
  behaviour: SimBehaviour,
  user: SimUser,
): Map<number, unknown> {
  const errors: Record<string, unknown> = {};
  const stored = new Map<number, unknown>();
  for (const [id, value] of entries) {
    const field = store.object('custom_fields', id)!;
    if (behaviour.bulkValuesValidated) {
      const checked = checkCustomFieldValue(field, value);
      const error = checked.error ?? documentLinkError(store, field, checked.stored);
      if (error) errors[String(id)] = { non_field_errors: [error] };
      stored.set(id, checked.stored);
    } else {
      if (behaviour.linkTargetsChecked && field.data_type === 'documentlink' && value !== null) {
        if (!Array.isArray(value)) fail(400, { non_field_errors: ['Value must be a list'] });
        const error = documentLinkError(store, field, value);
        if (error) fail(400, { non_field_errors: [error] });
      }
      stored.set(id, value);
    }
    if (
      behaviour.linkTargetsChecked &&
      field.data_type === 'documentlink' &&
      !mayChangeTargets(store, user, stored.get(id))
    ) {
      fail(403, { detail: 'Insufficient permissions.' });
    }
  }
  if (Object.keys(errors).length > 0) fail(400, { add_custom_fields: errors });
  return stored;
}

/** Whether the value's database column takes it (PostgreSQL): typed columns refuse other types, text columns their length. */
function databaseTakes(field: SimObject, value: unknown): boolean {
  if (value === null) return true;
  switch (field.data_type) {
    case 'integer':
      return Number.isInteger(value) || (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value));
    case 'float':
      return (
        typeof value === 'number' || (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value)))
      );
    case 'boolean':
      return typeof value === 'boolean' || value === 0 || value === 1;
    case 'date':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value));
    case 'string':
    case 'monetary':
    case 'select':
      return Array.from(String(value)).length <= 128;
    case 'url':
      return Array.from(String(value)).length <= 200;
    default:
      return true;
  }
}

/**
 * `set_permissions` (bulk_edit.py): `{"set_permissions": PERMS, "owner": id|null, "merge": bool}`. Without `merge`
 * (the default) every document gets `owner` (absent = none) and the named permission sets exactly; with `merge`,
 * only unowned documents get the owner and the named users and groups are added to the ones there.
 */
function setPermissions(
  store: SimStore,
  targets: SimDocument[],
  params: Record<string, unknown>,
  allow: () => void,
): void {
  const raw = params.set_permissions;
  // Paperless reads `parameters["set_permissions"]` unchecked: a missing key or a non-object is a server error.
  if (typeof raw !== 'object' || raw === null) throw new Error('KeyError: set_permissions');
  const update = validatePermissionUpdate(store, raw as Record<string, unknown>);
  if (typeof update === 'string') return fail(400, { non_field_errors: [update] });
  const owner = params.owner == null ? null : Number(params.owner);
  // `_validate_owner` calls `User.objects.get`, whose DoesNotExist is not caught: 500, not 400.
  if (owner !== null && !store.account(owner)) throw new Error(`User.DoesNotExist: ${JSON.stringify(params.owner)}`);
  allow();
  // Python truthiness: `if merge:`.
  const merge = ![undefined, null, false, 0, ''].includes(params.merge as never);
  for (const doc of targets) {
    if (!merge || doc.owner === null) doc.owner = owner;
    applyPermissionUpdate(store, doc.id, update, merge);
  }
}
