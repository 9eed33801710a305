import type { GrantTargets, ObjectGrants, SimAccount } from './sim-types.js';
import type { SimStore } from './store.js';

// Per-document object permissions (django-guardian) as Paperless writes and reads them:
// `SetPermissionsMixin` in documents/serialisers.py and `set_permissions_for_object` in documents/permissions.py.

export type GrantAction = keyof ObjectGrants;
const ACTIONS: GrantAction[] = ['view', 'change'];
const TARGETS: Array<keyof GrantTargets> = ['users', 'groups'];

/** A validated `set_permissions`: only the actions, and within them the targets, that the request named. */
export type PermissionUpdate = Partial<Record<GrantAction, Partial<GrantTargets>>>;

const emptyGrants = (): ObjectGrants => ({ view: { users: [], groups: [] }, change: { users: [], groups: [] } });

/** The `permissions` object of a document: users and groups holding each permission directly, in id order. */
export function documentPermissions(store: SimStore, docId: number): ObjectGrants {
  return structuredClone(store.grants.get(docId) ?? emptyGrants());
}

/** Whether anyone holds a permission on the document (`get_shared_object_pks`). */
export function isShared(store: SimStore, docId: number): boolean {
  return store.grants.has(docId);
}

/** The user holds the permission on the document itself or through one of its groups (guardian's checker). */
export function hasGrant(
  store: SimStore,
  docId: number,
  action: GrantAction,
  account: Pick<SimAccount, 'id' | 'groups'>,
): boolean {
  const grants = store.grants.get(docId);
  return (
    !!grants &&
    (grants[action].users.includes(account.id) || grants[action].groups.some((g) => account.groups.includes(g)))
  );
}

// Django turns each `id__in` value into an int (a bool is 0/1); anything else raises, and Paperless answers 500.
function idList(value: unknown, target: keyof GrantTargets): number[] {
  if (value === null) return [];
  if (!Array.isArray(value)) throw new Error(`TypeError: ${target} must be a list of ids`);
  return value.map((v) => {
    if (typeof v === 'boolean') return Number(v);
    if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
    if (typeof v === 'string' && /^\s*\d+\s*$/.test(v)) return Number(v);
    throw new Error(`ValueError: Field 'id' expected a number but got ${JSON.stringify(v)}.`);
  });
}

/**
 * `validate_set_permissions`: the named user and group ids must all exist, each once. Returns the update, or the
 * ValidationError message (Paperless puts it under `set_permissions` on a PATCH, under `non_field_errors` in a bulk edit).
 */
export function validatePermissionUpdate(store: SimStore, raw: Record<string, unknown>): PermissionUpdate | string {
  const update: PermissionUpdate = {};
  for (const action of ACTIONS) {
    if (!(action in raw)) continue;
    const entry = raw[action];
    // Paperless tests `"users" in entry`: false on a list (or a string without the word), a TypeError on None or a number.
    if (typeof entry === 'string' ? /users|groups/.test(entry) : typeof entry !== 'object' || entry === null) {
      throw new Error(`TypeError: argument of type ${JSON.stringify(entry)} is not iterable`);
    }
    update[action] = {};
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) continue;
    const targets = entry as Record<string, unknown>;
    for (const target of TARGETS) {
      if (!(target in targets)) continue;
      const ids = idList(targets[target], target);
      const exists = (id: number) => (target === 'users' ? store.account(id) : store.group(id)) !== undefined;
      if (new Set(ids.filter(exists)).size !== ids.length)
        return `Some ${target} in don't exist or were specified twice.`;
      update[action][target] = ids;
    }
  }
  return update;
}

/**
 * `set_permissions_for_object`: without `merge`, each named set replaces the holders of that permission (so an empty
 * list clears it); with `merge`, the named ones are only added. A `change` holder also gets `view`.
 */
export function applyPermissionUpdate(store: SimStore, docId: number, update: PermissionUpdate, merge: boolean): void {
  const grants = store.grants.get(docId) ?? emptyGrants();
  const union = (a: number[], b: number[]) => [...new Set([...a, ...b])].sort((x, y) => x - y);
  for (const action of ACTIONS) {
    for (const target of TARGETS) {
      const named = update[action]?.[target];
      if (named === undefined) continue;
      grants[action][target] = union(merge ? grants[action][target] : [], named);
      if (action === 'change') grants.view[target] = union(grants.view[target], named);
    }
  }
  const any = ACTIONS.some((action) => TARGETS.some((target) => grants[action][target].length > 0));
  if (any) store.grants.set(docId, grants);
  else store.grants.delete(docId);
}
