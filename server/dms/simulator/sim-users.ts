import type { ObjectKind } from './sim-types.js';

// Who is calling: the fixtures' superuser, or a user without superuser rights whose token sees only part
// of the data, as Paperless's `PaperlessObjectPermissions` and `get_objects_for_user_owner_aware`
// (documents/permissions.py) decide.

export type GrantKind = 'documents' | ObjectKind;

export interface LimitedUserOptions {
  /** API token (40 hex characters); random when absent. */
  token?: string;
  /** User id (objects owned by it are visible); default 4. */
  id?: number;
  username?: string;
  /** Django model permissions by codename, e.g. `view_document`, `change_document`, `view_tag`. */
  permissions: string[];
  /** Object-level `view`/`change` grants on objects owned by someone else (ids per kind). */
  grants?: Partial<Record<GrantKind, number[]>>;
}

export interface SimUser {
  id: number;
  username: string;
  superuser: boolean;
  /** Model permission check: superusers have every permission. */
  has(permission: string): boolean;
  /** Owned by this user, unowned, or granted to it. */
  sees(kind: GrantKind, object: { id: number; owner?: number | null }): boolean;
}

/** The model name in Paperless's permission codenames (`view_<model>`). */
export const PERMISSION_MODELS: Record<GrantKind, string> = {
  documents: 'document',
  tags: 'tag',
  correspondents: 'correspondent',
  document_types: 'documenttype',
  storage_paths: 'storagepath',
  custom_fields: 'customfield',
};

/** DRF's answer when a model permission is missing. */
export const PERMISSION_DENIED = { detail: 'You do not have permission to perform this action.' };

export function superuser(id: number, username: string): SimUser {
  return { id, username, superuser: true, has: () => true, sees: () => true };
}

export function limitedUser(options: LimitedUserOptions): SimUser {
  const id = options.id ?? 4;
  const permissions = new Set(options.permissions);
  return {
    id,
    username: options.username ?? 'ben',
    superuser: false,
    has: (permission) => permissions.has(permission),
    // CustomFieldViewSet has no ownership filter: custom fields have no owner (views.py).
    sees: (kind, object) => kind === 'custom_fields' || object.owner == null || object.owner === id || (options.grants?.[kind] ?? []).includes(object.id),
  };
}

/** The model permission a method needs on a kind (`perms_map`), e.g. GET on tags → `view_tag`. */
export function permissionFor(method: string, kind: GrantKind): string {
  const action = method === 'POST' ? 'add' : method === 'PUT' || method === 'PATCH' ? 'change' : method === 'DELETE' ? 'delete' : 'view';
  return `${action}_${PERMISSION_MODELS[kind]}`;
}
