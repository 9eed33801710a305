import { isDeepStrictEqual } from 'node:util';
import type { CreateMissing, CustomFieldValue, DocumentChanges } from '../../engine/model.js';
import {
  decodeCustomFieldValue,
  encodeCustomFieldValue,
  unknownName,
  type VocabularyIndex,
} from '../../dms/vocabulary-index.js';
import { createTagTree, withAncestors, type TagNode, type TagTree } from '../../dms/tag-hierarchy.js';
import type {
  CreatableKind,
  DmsCustomField,
  DmsCustomFieldValue,
  DmsDocument,
  DmsPermissionsPatch,
  DocumentPatch,
} from '../../dms/types.js';
import { PERMISSION_KINDS, PERMISSION_TARGETS } from '../../engine/permissions.js';
import { unsafeCreation } from './creation-guard.js';
import { dateOnly } from '../documents/rule-document.js';
import { errorMessage } from '../../error-message.js';
import { perObject } from '../../per-object.js';

/** A document field a plan can change; `notes` are added, never replaced; detaching custom fields counts as `custom_fields`. */
export type ChangeField = Exclude<keyof DocumentChanges, 'remove_custom_fields'>;

/** Tags to add and to remove (bulk `modify_tags`): a person's tag added meanwhile is never touched. */
export interface TagDelta {
  add: number[];
  remove: number[];
}

/** Custom-field values to set (attaching when absent) and fields to detach (bulk `modify_custom_fields`). */
export interface CustomFieldDelta {
  set: DmsCustomFieldValue[];
  remove: number[];
}

export interface MissingName {
  kind: CreatableKind;
  name: string;
  /** A storage path's Paperless path template, when the action gave one. */
  path?: string;
}

/**
 * What one document needs, in wire form, to end up as the rules want it. Pure data: jobs group
 * identical plans into bulk edits; `writePlan` (runs/pipeline/) writes one.
 */
export interface DocumentPlan {
  document: number;
  /**
   * The scalar fields that differ from the document, with `owner` and the permission lists that differ (one PATCH);
   * never `tags`/`custom_fields`, which PATCH replaces whole.
   */
  patch: DocumentPatch;
  /** What to add and remove, predicted with the dms's tag hierarchy so it ends exactly as planned; null: nothing. */
  tags: TagDelta | null;
  /** Values to set and fields to detach; null: nothing. */
  customFields: CustomFieldDelta | null;
  /** Names to create first (an action said `create_missing: true`); their ids join the patch once created. */
  create: MissingName[];
  /** Notes to add; notes identical to an existing one are left out. */
  notes: string[];
  /** `move_to_trash`: after everything else, the document goes to the dms's trash. */
  trash?: true;
  /** Fields that will change (written or waiting on a name to be created). */
  changed: ChangeField[];
  /** Fields whose change cannot be written, with a reason a person can act on. */
  failures: Partial<Record<ChangeField, string>>;
  /** The inputs, kept so the plan can be redone once missing names exist. */
  source: { document: DmsDocument; changes: DocumentChanges; createMissing: CreateMissing; index: VocabularyIndex };
}

type RelationField = 'correspondent' | 'document_type' | 'storage_path';
const RELATION_KINDS: Record<RelationField, 'correspondents' | 'document_types' | 'storage_paths'> = {
  correspondent: 'correspondents',
  document_type: 'document_types',
  storage_path: 'storage_paths',
};
const KIND_LABEL: Record<string, string> = {
  tags: 'Tag',
  correspondents: 'Correspondent',
  document_types: 'Document type',
  storage_paths: 'Storage path',
};

const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

function mayCreate(createMissing: CreateMissing, kind: string, name: string): kind is CreatableKind {
  const allowed = (createMissing as Record<string, string[] | undefined>)[kind] ?? [];
  return allowed.some((n) => sameName(n, name));
}

function missingMessage(kind: string, name: string): string {
  const creatable =
    kind === 'tags' || kind === 'correspondents' || kind === 'document_types' || kind === 'storage_paths';
  return `${KIND_LABEL[kind]} "${name}" does not exist in the dms; create it there${creatable ? ' or add create_missing: true to the action' : ''}.`;
}

/** Plans the minimal write that makes `doc` match `changes`; never throws for bad values, it records them in `failures`. */
export function planDocument(
  doc: DmsDocument,
  changes: DocumentChanges,
  createMissing: CreateMissing,
  index: VocabularyIndex,
): DocumentPlan {
  const plan: DocumentPlan = {
    document: doc.id,
    patch: {},
    tags: null,
    customFields: null,
    create: [],
    notes: [],
    changed: [],
    failures: {},
    source: { document: doc, changes, createMissing, index },
  };
  const fail = (field: ChangeField, message: string) => {
    plan.failures[field] = plan.failures[field] ? `${plan.failures[field]} ${message}` : message;
  };
  /** Resolves a name, or queues it for creation, or fails the field; `undefined` means "no id yet". */
  const resolve = (field: ChangeField, kind: CreatableKind | 'storage_paths', name: string): number | undefined => {
    const id = index.idOf(kind, name);
    if (id !== undefined) return id;
    if (mayCreate(createMissing, kind, name)) {
      const path =
        kind === 'storage_paths' ? createMissing.storage_path_templates?.[name.trim().toLocaleLowerCase()] : undefined;
      const unsafe = unsafeCreation(kind, name.trim(), path);
      if (unsafe) fail(field, unsafe);
      else if (!plan.create.some((m) => m.kind === kind && sameName(m.name, name)))
        plan.create.push({ kind, name: name.trim(), ...(path ? { path } : {}) });
    } else fail(field, missingMessage(kind, name));
    return undefined;
  };

  if (changes.title !== undefined && changes.title !== doc.title) {
    plan.patch.title = changes.title;
    plan.changed.push('title');
  }

  for (const field of Object.keys(RELATION_KINDS) as RelationField[]) {
    const wanted = changes[field];
    if (wanted === undefined) continue;
    if (wanted === null) {
      if (doc[field] !== null) {
        plan.patch[field] = null;
        plan.changed.push(field);
      }
      continue;
    }
    const id = resolve(field, RELATION_KINDS[field], wanted);
    if (id !== undefined && id === doc[field]) continue;
    if (plan.failures[field]) continue;
    if (id !== undefined) plan.patch[field] = id;
    plan.changed.push(field);
  }

  if (changes.tags !== undefined) planTags(doc, changes.tags, index, plan, resolve);
  if (changes.custom_fields !== undefined || changes.remove_custom_fields !== undefined) {
    planCustomFields(doc, changes.custom_fields ?? {}, changes.remove_custom_fields ?? [], index, plan, fail);
  }

  if (changes.created !== undefined && dateOnly(changes.created) !== dateOnly(doc.created)) {
    const created = dateOnly(changes.created);
    if (created && /^\d{4}-\d{2}-\d{2}$/.test(created)) {
      plan.patch.created = created;
      plan.changed.push('created');
    } else fail('created', `"${changes.created}" is not a date; give yyyy-MM-dd.`);
  }

  if (changes.archive_serial_number !== undefined && changes.archive_serial_number !== doc.archive_serial_number) {
    plan.patch.archive_serial_number = changes.archive_serial_number;
    plan.changed.push('archive_serial_number');
  }

  if (changes.owner !== undefined) planOwner(doc, changes.owner, index, plan, fail);
  if (changes.permissions !== undefined) planPermissions(doc, changes.permissions, index, plan, fail);

  const existing = (doc.notes ?? []).map((n) => n.note.trim());
  for (const note of changes.notes ?? []) {
    const text = note.trim();
    if (text === '' || existing.includes(text) || plan.notes.includes(text)) continue;
    plan.notes.push(text);
  }
  if (plan.notes.length > 0) plan.changed.push('notes');
  if (changes.trash) {
    plan.trash = true;
    plan.changed.push('trash');
  }
  return plan;
}

// The dms's tag list is one array per vocabulary snapshot (a created tag makes a new one): its tree is built
// once, not for every document a job plans.
const tagTreeOf = perObject((tags: readonly TagNode[]): TagTree => createTagTree(tags));

function planTags(
  doc: DmsDocument,
  names: string[],
  index: VocabularyIndex,
  plan: DocumentPlan,
  resolve: (field: ChangeField, kind: CreatableKind, name: string) => number | undefined,
): void {
  // A tag the document already has keeps its id even if the vocabulary no longer knows its name (shown as "#id").
  const current = new Map<string, number>();
  for (const id of doc.tags) current.set((index.nameOf('tags', id) ?? unknownName(id)).toLowerCase(), id);
  const ids: number[] = [];
  let waiting = false;
  for (const name of names) {
    const id = current.get(name.trim().toLowerCase()) ?? resolve('tags', 'tags', name);
    if (id === undefined) waiting = true;
    else if (!ids.includes(id)) ids.push(id);
  }
  if (plan.failures.tags) return;
  // Paperless adds every ancestor of a tag it stores: plan the same, so the write ends exactly as planned.
  const wanted = withAncestors(tagTreeOf(index.vocabulary.tags), ids);
  const add = wanted.filter((t) => !doc.tags.includes(t));
  const remove = [...new Set(doc.tags)].filter((t) => !wanted.includes(t));
  if (!waiting && add.length === 0 && remove.length === 0) return;
  plan.tags = { add, remove };
  plan.changed.push('tags');
}

function planCustomFields(
  doc: DmsDocument,
  wanted: Record<string, CustomFieldValue>,
  detach: string[],
  index: VocabularyIndex,
  plan: DocumentPlan,
  fail: (field: ChangeField, message: string) => void,
): void {
  const current = doc.custom_fields ?? [];
  const set: DmsCustomFieldValue[] = [];
  for (const [name, value] of Object.entries(wanted)) {
    const field = index.field(name);
    if (!field) {
      fail(
        'custom_fields',
        `Custom field "${name}" does not exist in the dms; create it there (custom fields are never created automatically).`,
      );
      continue;
    }
    let encoded: unknown;
    try {
      encoded = encodeCustomFieldValue(field, value);
    } catch (err) {
      fail('custom_fields', errorMessage(err));
      continue;
    }
    const slot = current.find((cf) => cf.field === field.id);
    // Not attached: setting it attaches it (with no value when the rules asked for an empty field).
    if (!slot || !sameWireValue(field, slot.value, encoded)) set.push({ field: field.id, value: encoded });
  }
  const remove: number[] = [];
  for (const name of detach) {
    const id = index.field(name)?.id ?? (/^#(\d+)$/.exec(name) ? Number(name.slice(1)) : undefined);
    if (id !== undefined && current.some((cf) => cf.field === id) && !remove.includes(id)) remove.push(id);
  }
  if (set.length === 0 && remove.length === 0) return;
  plan.customFields = { set, remove };
  plan.changed.push('custom_fields');
}

/** Compared in canonical wire form, so a legacy "84.37" equals "EUR84.37" when that is the field's currency. */
export function sameWireValue(field: DmsCustomField, stored: unknown, encoded: unknown): boolean {
  let current: unknown = stored;
  try {
    current = stored === null ? null : encodeCustomFieldValue(field, decodeCustomFieldValue(field, stored));
  } catch {
    // an existing value the codec cannot read: keep the raw value for the comparison
  }
  return isDeepStrictEqual(current, encoded);
}

/** A user's or group's id by name; `#12` (a name the vocabulary did not know when the document was read) is id 12. */
function principalId(index: VocabularyIndex, kind: 'users' | 'groups', name: string): number | undefined {
  return index.idOf(kind, name) ?? (/^#\d+$/.test(name.trim()) ? Number(name.trim().slice(1)) : undefined);
}

const principalMissing = (kind: 'users' | 'groups', name: string) =>
  `${kind === 'users' ? 'User' : 'Group'} "${name}" does not exist in the dms; create it in Paperless (the service never creates ${kind}).`;

function planOwner(
  doc: DmsDocument,
  owner: string | null,
  index: VocabularyIndex,
  plan: DocumentPlan,
  fail: (field: ChangeField, message: string) => void,
): void {
  const id = owner === null ? null : principalId(index, 'users', owner);
  if (id === undefined) return fail('owner', principalMissing('users', owner as string));
  if (id === (doc.owner ?? null)) return;
  plan.patch.owner = id;
  plan.changed.push('owner');
}

/** Only the lists that differ are sent: Paperless replaces each list it is given and leaves the others. */
function planPermissions(
  doc: DmsDocument,
  wanted: DocumentChanges['permissions'] & object,
  index: VocabularyIndex,
  plan: DocumentPlan,
  fail: (field: ChangeField, message: string) => void,
): void {
  if (!doc.permissions)
    return fail(
      'permissions',
      'The document was read without its permissions, so they cannot be changed safely; run the rule again.',
    );
  const patch: DmsPermissionsPatch = {};
  for (const kind of PERMISSION_KINDS) {
    for (const target of PERMISSION_TARGETS) {
      const ids: number[] = [];
      for (const name of wanted[kind][target]) {
        const id = principalId(index, target, name);
        if (id === undefined) fail('permissions', principalMissing(target, name));
        else if (!ids.includes(id)) ids.push(id);
      }
      const current = doc.permissions[kind][target];
      if (ids.length !== current.length || ids.some((id) => !current.includes(id))) (patch[kind] ??= {})[target] = ids;
    }
  }
  if (plan.failures.permissions || Object.keys(patch).length === 0) return;
  plan.patch.set_permissions = patch;
  plan.changed.push('permissions');
}

/** The document field a PATCH key writes (`set_permissions` writes `permissions`). */
export function patchField(key: keyof DocumentPatch): ChangeField {
  return key === 'set_permissions' ? 'permissions' : key;
}

/** True when the plan would not touch the dms at all. */
export function isEmptyPlan(plan: DocumentPlan): boolean {
  return !hasWrite(plan) && plan.create.length === 0 && plan.notes.length === 0 && !plan.trash;
}

/** True when the plan changes any field of the document (notes and names to create aside). */
export function hasWrite(plan: Pick<DocumentPlan, 'patch' | 'tags' | 'customFields'>): boolean {
  return Object.keys(plan.patch).length > 0 || plan.tags !== null || plan.customFields !== null;
}
