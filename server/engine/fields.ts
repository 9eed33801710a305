/** What each document field holds, so operators can be checked at compile time and applied consistently. */
import type { CustomFieldValue, PermissionKind, PermissionTarget, RuleDocument } from './model.js';
import { clonePermissions, emptyPermissions } from './permissions.js';

export type FieldKind = 'text' | 'list' | 'date' | 'number' | 'custom';

const KINDS: Record<string, FieldKind> = {
  id: 'number',
  title: 'text',
  content: 'text',
  correspondent: 'text',
  document_type: 'text',
  storage_path: 'text',
  original_file_name: 'text',
  mime_type: 'text',
  tags: 'list',
  notes: 'list',
  created: 'date',
  added: 'date',
  modified: 'date',
  archive_serial_number: 'number',
  page_count: 'number',
  owner: 'text',
  'permissions.view.users': 'list',
  'permissions.view.groups': 'list',
  'permissions.change.users': 'list',
  'permissions.change.groups': 'list',
};

export const CUSTOM_PREFIX = 'custom_fields.';

/** The kind of a condition field, or null when there is no such field. */
export function fieldKind(field: string): FieldKind | null {
  if (field.startsWith(CUSTOM_PREFIX) && field.length > CUSTOM_PREFIX.length) return 'custom';
  return KINDS[field] ?? null;
}

/** The value a condition or extraction sees; `undefined` for a custom field not attached to the document. */
export function readField(doc: RuleDocument, field: string): unknown {
  if (field.startsWith(CUSTOM_PREFIX)) {
    const name = field.slice(CUSTOM_PREFIX.length);
    return Object.prototype.hasOwnProperty.call(doc.custom_fields, name) ? doc.custom_fields[name] : undefined;
  }
  const permission = PERMISSION_FIELD.exec(field);
  // Read without its permissions (no rule needed them): nothing is known, which no test mistakes for "nobody".
  if (permission) return doc.permissions?.[permission[1] as PermissionKind][permission[2] as PermissionTarget];
  return (doc as unknown as Record<string, unknown>)[field];
}

const PERMISSION_FIELD = /^permissions\.(view|change)\.(users|groups)$/;

/** A blank document, for rule tests that give only some fields. */
export function emptyDocument(): RuleDocument {
  return {
    id: 0,
    title: '',
    content: '',
    tags: [],
    correspondent: null,
    document_type: null,
    storage_path: null,
    custom_fields: {},
    created: null,
    added: null,
    modified: null,
    archive_serial_number: null,
    original_file_name: null,
    mime_type: null,
    page_count: null,
    notes: [],
    owner: null,
    permissions: emptyPermissions(),
  };
}

/** A deep copy, so actions can change it without touching the caller's document. */
export function cloneDocument(doc: RuleDocument): RuleDocument {
  const custom: Record<string, CustomFieldValue> = {};
  for (const [k, v] of Object.entries(doc.custom_fields)) custom[k] = cloneValue(v);
  return {
    ...doc,
    tags: [...doc.tags],
    notes: [...doc.notes],
    custom_fields: custom,
    permissions: doc.permissions && clonePermissions(doc.permissions),
  };
}

function cloneValue(v: CustomFieldValue): CustomFieldValue {
  if (Array.isArray(v)) return [...v];
  if (v && typeof v === 'object') return { ...v };
  return v;
}
