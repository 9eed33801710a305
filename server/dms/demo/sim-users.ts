import { hasGrant } from './document-permissions.js';
import type { ObjectKind, SimAccount } from './sim-types.js';
import type { SimStore } from './store.js';

// Who is calling: the fixtures' superuser, or a user without superuser rights whose token sees only part
// of the data, as Paperless's `PaperlessObjectPermissions` and `get_objects_for_user_owner_aware`
// (documents/permissions.py) decide.

export type GrantKind = 'documents' | ObjectKind;

/** Object-level `view`/`change` grants on objects owned by someone else (ids per kind), besides the documents' stored ones. */
export type ExtraGrants = Partial<Record<GrantKind, number[]>>;

export interface SimUser {
  id: number;
  username: string;
  superuser: boolean;
  /** Model permission check: superusers have every permission. */
  has(permission: string): boolean;
  /** Owned by this user, unowned, or granted to it (`get_objects_for_user_owner_aware`). */
  sees(kind: GrantKind, object: { id: number; owner?: number | null }): boolean;
  /** `PaperlessObjectPermissions.has_object_permission` for PUT/PATCH: owner, unowned, or a change grant to it or one of its groups. */
  mayChange(kind: GrantKind, object: { id: number; owner?: number | null }): boolean;
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
  return { id, username, superuser: true, has: () => true, sees: () => true, mayChange: () => true };
}

/**
 * The caller for a stored account, reading its permissions and groups live: a superuser account may do
 * everything; any other sees what it owns, what is unowned and what it is granted (`grants` adds object grants
 * besides the documents' stored ones).
 */
export function accountUser(store: SimStore, id: number, grants: ExtraGrants = {}): SimUser {
  const account = () => store.account(id) as SimAccount;
  if (account().is_superuser) return superuser(id, account().username);
  const owns = (object: { owner?: number | null }) => object.owner == null || object.owner === id;
  const granted = (kind: GrantKind, object: { id: number }) => (grants[kind] ?? []).includes(object.id);
  return {
    id,
    username: account().username,
    superuser: false,
    has: (permission) =>
      account().user_permissions.includes(permission) ||
      account().groups.some((g) => store.group(g)?.permissions.includes(permission)),
    // CustomFieldViewSet has no ownership filter: custom fields have no owner (views.py).
    sees: (kind, object) =>
      kind === 'custom_fields' ||
      owns(object) ||
      granted(kind, object) ||
      (kind === 'documents' && hasGrant(store, object.id, 'view', account())),
    mayChange: (kind, object) =>
      kind === 'custom_fields' ||
      owns(object) ||
      granted(kind, object) ||
      (kind === 'documents' && hasGrant(store, object.id, 'change', account())),
  };
}

/** The model permission a method needs on a kind (`perms_map`), e.g. GET on tags → `view_tag`. */
export function permissionFor(method: string, kind: GrantKind): string {
  const action =
    method === 'POST'
      ? 'add'
      : method === 'PUT' || method === 'PATCH'
        ? 'change'
        : method === 'DELETE'
          ? 'delete'
          : 'view';
  return `${action}_${PERMISSION_MODELS[kind]}`;
}
