import { tagsAfterPatch } from '../tag-hierarchy.js';
import { SIM_PROFILES, type SimBehaviour } from './profiles.js';
import { snapshot } from './audit-log.js';
import { recordSave } from './audit-record.js';
import { reflectDoclinks, removeDoclink } from './doc-links.js';
import { applyPermissionUpdate, validatePermissionUpdate, type PermissionUpdate } from './document-permissions.js';
import { fail } from './http-kit.js';
import type { SimStore } from './store.js';
import type { ObjectKind, SimDocument, SimObject } from './sim-types.js';
import type { SimUser } from './sim-users.js';
import { checkCustomFieldValue } from './value-rules.js';

type Errors = Record<string, unknown>;

const RELATIONS: Array<['correspondent' | 'document_type' | 'storage_path', ObjectKind]> = [
  ['correspondent', 'correspondents'],
  ['document_type', 'document_types'],
  ['storage_path', 'storage_paths'],
];

function pyType(value: unknown): string {
  if (typeof value === 'string') return 'str';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'boolean') return 'bool';
  if (value === null) return 'NoneType';
  return Array.isArray(value) ? 'list' : 'dict';
}

function pk(store: SimStore, kind: ObjectKind | 'users', value: unknown): { id?: number; error?: string } {
  if (typeof value === 'string' && !/^\d+$/.test(value))
    return { error: `Incorrect type. Expected pk value, received ${pyType(value)}.` };
  if (typeof value !== 'number' && typeof value !== 'string')
    return { error: `Incorrect type. Expected pk value, received ${pyType(value)}.` };
  const id = Number(value);
  const exists = kind === 'users' ? store.account(id) : store.object(kind, id);
  return exists ? { id } : { error: `Invalid pk "${value}" - object does not exist.` };
}

/**
 * Validates a PATCH/PUT body the way Paperless's serializer does and applies it to the document.
 * Throws a 400 with Paperless's error shape (or 403 when `user` may not change owner or permissions);
 * unknown and read-only keys are ignored. The save is logged in the audit log for `actor` (the request's user; null
 * for Paperless's own workflows) and document links are mirrored onto their targets. Answers the `modified` the
 * saved instance holds in memory (`recordSave`).
 */
export interface WriteOptions {
  /** `set_actor(self.user)` around the save: the request's user by default; null for Paperless's own workflows. */
  actor?: number | null;
  /**
   * The auditlog middleware's actor, for what the serializer writes outside `set_actor` (a link field left out
   * unmirrors first): null (default) for a token or Basic request, the person in a browser session.
   */
  sessionActor?: number | null;
  /** The release's behaviour (tag tree, document-link permission checks); default 3.0.5. */
  behaviour?: SimBehaviour;
}

export function applyDocumentWrite(
  store: SimStore,
  doc: SimDocument,
  body: unknown,
  put: boolean,
  user: SimUser,
  options: WriteOptions = {},
): string {
  const actor = options.actor === undefined ? user.id : options.actor;
  const behaviour = options.behaviour ?? SIM_PROFILES['3.0'].behaviour;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    fail(400, { non_field_errors: [`Invalid data. Expected a dictionary, but got ${pyType(body)}.`] });
  }
  const input = body as Record<string, unknown>;
  const errors: Errors = {};
  const next: Partial<SimDocument> = {};

  if (put) {
    for (const key of ['correspondent', 'document_type', 'storage_path', 'tags']) {
      if (!(key in input)) errors[key] = ['This field is required.'];
    }
  }
  if ('title' in input) {
    if (typeof input.title !== 'string') errors.title = ['Not a valid string.'];
    // Django counts code points (Python str), not UTF-16 units.
    else if (Array.from(input.title).length > 128)
      errors.title = ['Ensure this field has no more than 128 characters.'];
    else next.title = input.title;
  }
  if ('content' in input) {
    if (typeof input.content !== 'string') errors.content = ['Not a valid string.'];
    else next.content = input.content;
  }
  for (const [key, kind] of RELATIONS) {
    if (!(key in input)) continue;
    if (input[key] === null) next[key] = null;
    else {
      const { id, error } = pk(store, kind, input[key]);
      if (error) errors[key] = [error];
      else next[key] = id;
    }
  }
  if ('tags' in input) {
    if (!Array.isArray(input.tags)) errors.tags = [`Expected a list of items but got type "${pyType(input.tags)}".`];
    else {
      const ids: number[] = [];
      for (const item of input.tags) {
        const { id, error } = pk(store, 'tags', item);
        if (error) {
          errors.tags = [error];
          break;
        }
        ids.push(id as number);
      }
      // Before 2.19.0 the requested set is stored as it is.
      if (!errors.tags)
        next.tags = behaviour.tagHierarchy ? tagsAfterPatch(store.tagTree(), doc.tags, ids) : [...new Set(ids)];
    }
  }
  if ('created' in input || 'created_date' in input) {
    const raw = input.created ?? input.created_date;
    const key = 'created' in input ? 'created' : 'created_date';
    const text = typeof raw === 'string' ? raw : '';
    // A datetime (contains ':') is accepted and turned into its date.
    const date = text.includes(':') && !Number.isNaN(Date.parse(text)) ? text.slice(0, 10) : text;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(date))) {
      errors[key] = ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'];
    } else next.created = date;
  }
  if ('archive_serial_number' in input) {
    const asn = input.archive_serial_number;
    if (asn === null) next.archive_serial_number = null;
    else if (!Number.isInteger(asn) || (asn as number) < 0 || (asn as number) > 4294967295) {
      errors.archive_serial_number = ['Ensure this value is less than or equal to 4294967295.'];
    } else if (store.trashedAsns.has(asn as number)) {
      errors.archive_serial_number = ['Document with this Archive Serial Number already exists in the trash.'];
    } else if ([...store.documents.values()].some((d) => d.id !== doc.id && d.archive_serial_number === asn)) {
      errors.archive_serial_number = ['document with this archive serial number already exists.'];
    } else next.archive_serial_number = asn as number;
  }
  if ('owner' in input) {
    const { id, error } = input.owner === null ? { id: null } : pk(store, 'users', input.owner);
    if (error) errors.owner = [error];
    else next.owner = id;
  }
  let permissions: PermissionUpdate | null = null;
  if ('set_permissions' in input) {
    const raw = input.set_permissions;
    if (raw === null) errors.set_permissions = ['This field may not be null.'];
    else if (typeof raw !== 'object' || Array.isArray(raw))
      errors.set_permissions = [`Expected a dictionary of items but got type "${pyType(raw)}".`];
    else {
      const checked = validatePermissionUpdate(store, raw as Record<string, unknown>);
      if (typeof checked === 'string') errors.set_permissions = [checked];
      else permissions = checked;
    }
  }
  if ('custom_fields' in input) {
    const result = customFields(store, input.custom_fields, behaviour.linkTargetsChecked ? user : null);
    if (result.error) errors.custom_fields = result.error;
    else {
      // Values keep their original position (Paperless orders them by creation); new ones go last.
      const incoming = new Map(result.values!.map((cf) => [cf.field, cf.value]));
      const kept = doc.custom_fields
        .filter((cf) => incoming.has(cf.field))
        .map((cf) => ({ value: incoming.get(cf.field), field: cf.field }));
      const added = result.values!.filter((cf) => !doc.custom_fields.some((old) => old.field === cf.field));
      next.custom_fields = [...kept, ...added];
    }
  }
  if (Object.keys(errors).length > 0) fail(400, errors);
  // OwnedObjectSerializer.update: only a superuser or the owner may give an owned document away or share it.
  const ownerChanges = next.owner !== undefined && next.owner !== doc.owner;
  if ((ownerChanges || permissions) && !(user.superuser || doc.owner === null || doc.owner === user.id)) {
    fail(403, { detail: 'Insufficient permissions.' });
  }
  if (permissions) applyPermissionUpdate(store, doc.id, permissions, false);

  const before = snapshot(doc);
  if (next.custom_fields) mirrorLinks(store, doc, next.custom_fields, actor, options.sessionActor ?? null);
  Object.assign(doc, next);
  if (input.remove_inbox_tags === true) {
    const keep = new Set(Array.isArray(input.tags) ? (input.tags as unknown[]).map(Number) : []);
    const inbox = new Set(store.objects.tags.filter((t) => t.is_inbox_tag).map((t) => t.id));
    doc.tags = doc.tags.filter((t) => !inbox.has(t) || keep.has(t));
  }
  return recordSave(store, before, doc, actor, { instancesMoveModified: instancesMoveModified(store, doc, behaviour) });
}

/**
 * `update_filename_and_move_files` runs on every custom-field instance's post_save and sets `modified = now()`:
 * always before 2.20.2; from 2.20.2 only when the document's file-name template names `custom_fields` (its storage
 * path's; `PAPERLESS_FILENAME_FORMAT` is not modelled).
 */
export function instancesMoveModified(store: SimStore, doc: SimDocument, behaviour: SimBehaviour): boolean {
  if (behaviour.instanceSaveMovesModified) return true;
  const path = doc.storage_path === null ? null : store.object('storage_paths', doc.storage_path)?.path;
  return typeof path === 'string' && path.includes('custom_fields');
}

/**
 * `DocumentSerializer.update`: a link field left out of the new set drops the document from every target
 * (`remove_doclink`, before `set_actor`: the middleware's actor); each link value written is mirrored
 * (`CustomFieldInstanceSerializer.create` → `reflect_doclinks`, inside `set_actor`, before the value is stored).
 */
function mirrorLinks(
  store: SimStore,
  doc: SimDocument,
  incoming: SimDocument['custom_fields'],
  actor: number | null,
  sessionActor: number | null,
): void {
  const isLink = (field: number) => store.object('custom_fields', field)?.data_type === 'documentlink';
  for (const cf of doc.custom_fields) {
    if (!isLink(cf.field) || incoming.some((i) => i.field === cf.field) || !Array.isArray(cf.value)) continue;
    for (const target of cf.value as number[]) removeDoclink(store, doc.id, cf.field, target, sessionActor);
  }
  for (const cf of incoming)
    if (isLink(cf.field)) reflectDoclinks(store, doc.id, cf.field, cf.value as number[] | null, actor);
}

function customFields(
  store: SimStore,
  raw: unknown,
  linkChanger: SimUser | null = null,
): { error?: unknown; values?: SimDocument['custom_fields'] } {
  if (raw === null) return { error: ['This field may not be null.'] };
  if (!Array.isArray(raw)) return { error: [`Expected a list of items but got type "${pyType(raw)}".`] };
  const itemErrors: Errors[] = [];
  const values = new Map<number, unknown>();
  for (const item of raw) {
    const entry = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    const errors: Errors = {};
    const { id, error } =
      'field' in entry ? pk(store, 'custom_fields', entry.field) : { error: 'This field is required.' };
    if (error) errors.field = [error];
    if (!('value' in entry)) errors.value = ['This field is required.'];
    if (Object.keys(errors).length === 0) {
      const checked = checkCustomFieldValue(store.object('custom_fields', id as number)!, entry.value);
      const error =
        checked.error ?? documentLinkError(store, store.object('custom_fields', id as number)!, checked.stored);
      if (error) errors.non_field_errors = [error];
      else if (linkChanger && !mayChangeTargets(store, linkChanger, checked.stored))
        fail(403, { detail: 'Insufficient permissions.' });
      else values.set(id as number, checked.stored);
    }
    itemErrors.push(errors);
  }
  if (itemErrors.some((e) => Object.keys(e).length > 0)) return { error: itemErrors };
  return { values: [...values].map(([field, value]) => ({ value, field })) };
}

/**
 * `validate_documentlink_targets` (serialisers.py): every document-link value written, including the ones a
 * PATCH merely resends, must name existing documents, each once. Trashed documents do not count as existing.
 */
export function documentLinkError(store: SimStore, field: SimObject, value: unknown): string | null {
  if (field.data_type !== 'documentlink' || !Array.isArray(value)) return null;
  const ids = value as number[];
  const existing = new Set(ids.filter((id) => store.getDocument(id)));
  return existing.size === ids.length ? null : "Some documents in value don't exist or were specified twice.";
}

/** 2.20.13+ `validate_documentlink_targets`: the writer needs change permission on every linked document (else 403). */
export function mayChangeTargets(store: SimStore, user: SimUser, value: unknown): boolean {
  if (!Array.isArray(value)) return true;
  return (value as number[]).every((id) => {
    const target = store.getDocument(id);
    return !target || user.mayChange('documents', target);
  });
}

export { customFields as validateCustomFieldList };
