// Names the Django permission a 403 from Paperless is about, so the error says what to grant.

const MODELS: Record<string, string> = {
  documents: 'document',
  tags: 'tag',
  correspondents: 'correspondent',
  document_types: 'documenttype',
  storage_paths: 'storagepath',
  custom_fields: 'customfield',
  users: 'user',
  groups: 'group',
  // UiSettingsView is guarded by PaperlessObjectPermissions too (2.16–3.0.5): the token's own user needs it.
  ui_settings: 'uisettings',
};

const ACTIONS: Record<string, string> = { GET: 'view', POST: 'add', PUT: 'change', PATCH: 'change', DELETE: 'delete' };

/**
 * The permission `PaperlessObjectPermissions` checks for a request (`perms_map` in documents/permissions.py),
 * e.g. PATCH /api/documents/7/ → change_document; null for paths it does not guard that way.
 */
export function permissionFor(method: string, path: string): string | null {
  if (/^\/api\/documents\/bulk_edit\/$/.test(path)) return 'change_document';
  const note = /^\/api\/documents\/\d+\/notes\/$/.test(path);
  if (note) return method === 'POST' ? 'add_note' : method === 'DELETE' ? 'delete_note' : 'view_note';
  const match = /^\/api\/([a-z_]+)\/(?:\d+\/)?$/.exec(path);
  const model = match ? MODELS[match[1]] : undefined;
  const action = ACTIONS[method];
  return model && action ? `${action}_${model}` : null;
}

// DRF's answer when a model permission is missing; Paperless's object-level checks say "Insufficient permissions".
const MODEL_PERMISSION_DENIED = 'You do not have permission to perform this action';

/** What a person can do about a 403 from Paperless, as a parenthesised hint (empty when there is nothing to add). */
export function forbiddenHint(method: string, path: string, detail: string): string {
  if (/insufficient permissions/i.test(detail) && /^\/api\/documents\/\d+\/$/.test(path) && method !== 'GET') {
    return " (Paperless lets only a superuser or the document's owner change its owner or permissions)";
  }
  const permission = permissionFor(method, path);
  if (!permission || (!detail.includes(MODEL_PERMISSION_DENIED) && !/insufficient permissions/i.test(detail)))
    return '';
  return ` (the Paperless token's user lacks the permission ${permission})`;
}
