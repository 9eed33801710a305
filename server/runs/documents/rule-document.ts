import type { CustomFieldValue, DocumentPermissions, RuleDocument } from '../../engine/model.js';
import { decodeCustomFieldValue, unknownName, type VocabularyIndex } from '../../dms/vocabulary-index.js';
import type { DmsDocument, DmsPermissions } from '../../dms/types.js';
import { perObject } from '../../per-object.js';

/** `yyyy-MM-dd` from a Paperless date or datetime; Paperless ≥ v9 sends a date, older servers a datetime. */
export function dateOnly(value: string | null | undefined): string | null {
  if (!value) return null;
  const match = /^\d{4}-\d{2}-\d{2}/.exec(value);
  return match ? match[0] : value;
}

/**
 * The document's ids the vocabulary does not know, as `kind:id` (e.g. `tags:4`): the cached vocabulary is
 * stale, or the token may not see those objects. Kinds the token may not view at all are left out.
 */
export function unknownRefs(doc: DmsDocument, index: VocabularyIndex): string[] {
  const hidden = hiddenKinds(index);
  const refs: string[] = [];
  const check = (
    kind: 'tags' | 'correspondents' | 'document_types' | 'storage_paths' | 'users' | 'groups',
    id: number | null,
  ) => {
    if (!hidden.has(kind) && id !== null && index.nameOf(kind, id) === undefined) refs.push(`${kind}:${id}`);
  };
  for (const id of doc.tags) check('tags', id);
  if (!hidden.has('custom_fields'))
    for (const cf of doc.custom_fields)
      if (index.fieldById(cf.field) === undefined) refs.push(`custom_fields:${cf.field}`);
  check('correspondents', doc.correspondent);
  check('document_types', doc.document_type);
  check('storage_paths', doc.storage_path);
  check('users', doc.owner ?? null);
  for (const kind of ['view', 'change'] as const) {
    for (const id of doc.permissions?.[kind].users ?? []) check('users', id);
    for (const id of doc.permissions?.[kind].groups ?? []) check('groups', id);
  }
  return refs;
}

/**
 * Kinds whose ids are never stale: the token may not view them, or they were not listed. Asked for every document
 * of a job, so once per vocabulary index (one per snapshot).
 */
const hiddenKinds = perObject((index: VocabularyIndex): ReadonlySet<string> => {
  const kinds = new Set<string>(index.vocabulary.forbidden?.map((f) => f.kind));
  // Users and groups not listed (no rule needed them) are not stale, just not loaded.
  if (index.vocabulary.users === undefined) kinds.add('users').add('groups');
  return kinds;
});

/** The document as rules see it: ids resolved to names, custom fields decoded by data type. */
export function toRuleDocument(doc: DmsDocument, index: VocabularyIndex): RuleDocument {
  const name = (kind: 'correspondents' | 'document_types' | 'storage_paths', id: number | null) =>
    id === null ? null : (index.nameOf(kind, id) ?? unknownName(id));

  const customFields: Record<string, CustomFieldValue> = {};
  for (const { field, value } of doc.custom_fields ?? []) {
    const definition = index.fieldById(field);
    if (definition) customFields[definition.name] = decodeCustomFieldValue(definition, value);
    else customFields[unknownName(field)] = value as CustomFieldValue;
  }

  return {
    id: doc.id,
    title: doc.title ?? '',
    content: doc.content ?? '',
    tags: (doc.tags ?? []).map((id) => index.nameOf('tags', id) ?? unknownName(id)),
    correspondent: name('correspondents', doc.correspondent),
    document_type: name('document_types', doc.document_type),
    storage_path: name('storage_paths', doc.storage_path),
    custom_fields: customFields,
    created: dateOnly(doc.created),
    added: doc.added ?? null,
    modified: doc.modified ?? null,
    archive_serial_number: doc.archive_serial_number ?? null,
    original_file_name: doc.original_file_name ?? null,
    mime_type: doc.mime_type ?? null,
    page_count: doc.page_count ?? null,
    notes: (doc.notes ?? []).map((n) => n.note),
    owner: doc.owner == null ? null : (index.nameOf('users', doc.owner) ?? unknownName(doc.owner)),
    permissions: doc.permissions ? permissionNames(doc.permissions, index) : null,
  };
}

function permissionNames(p: DmsPermissions, index: VocabularyIndex): DocumentPermissions {
  const users = (ids: number[]) => ids.map((id) => index.nameOf('users', id) ?? unknownName(id));
  const groups = (ids: number[]) => ids.map((id) => index.nameOf('groups', id) ?? unknownName(id));
  return {
    view: { users: users(p.view.users), groups: groups(p.view.groups) },
    change: { users: users(p.change.users), groups: groups(p.change.groups) },
  };
}
