/**
 * A document's view and change permissions by name, and how the permission actions change them. Paperless gives
 * a user or group that may change a document the view permission too (`set_permissions_for_object`), so the sets
 * here keep that shape: whoever is in `change` is in `view`.
 */
import type {
  DocumentPermissions,
  FieldChange,
  PartialPermissions,
  PermissionKind,
  PermissionTarget,
} from './model.js';

export const PERMISSION_KINDS: readonly PermissionKind[] = ['view', 'change'];
export const PERMISSION_TARGETS: readonly PermissionTarget[] = ['users', 'groups'];

export type PermissionAction = 'set_permissions' | 'add_permissions' | 'remove_permissions';

/** One list of a permission action after rendering: e.g. view/groups → [Family]. */
export interface PermissionEntry {
  kind: PermissionKind;
  target: PermissionTarget;
  names: string[];
}

const same = (a: string, b: string) => a.toLocaleLowerCase() === b.toLocaleLowerCase();
const has = (list: readonly string[], name: string) => list.some((n) => same(n, name));
const union = (a: readonly string[], b: readonly string[]) => [...a, ...b.filter((n) => !has(a, n))];

export function emptyPermissions(): DocumentPermissions {
  return { view: { users: [], groups: [] }, change: { users: [], groups: [] } };
}

export function clonePermissions(p: DocumentPermissions): DocumentPermissions {
  return {
    view: { users: [...p.view.users], groups: [...p.view.groups] },
    change: { users: [...p.change.users], groups: [...p.change.groups] },
  };
}

/** A partial set of lists (a rule test's document) over empty ones. */
export function completePermissions(partial: PartialPermissions | null | undefined): DocumentPermissions {
  const out = emptyPermissions();
  for (const kind of PERMISSION_KINDS)
    for (const target of PERMISSION_TARGETS) out[kind][target] = [...(partial?.[kind]?.[target] ?? [])];
  return out;
}

export function sameNameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((n) => has(b, n));
}

/**
 * The permissions after one action. `set` replaces the lists it names, `add` and `remove` change them by
 * difference; `all` (remove_permissions: all) empties every list. Adding change adds view; taking view away
 * takes change away too, since a person cannot change what they may not see.
 */
export function applyPermissionAction(
  current: DocumentPermissions,
  action: PermissionAction,
  entries: PermissionEntry[],
  all = false,
): DocumentPermissions {
  if (all) return emptyPermissions();
  const next = clonePermissions(current);
  for (const { kind, target, names } of entries) {
    const list = next[kind][target];
    if (action === 'set_permissions') next[kind][target] = union([], names);
    else if (action === 'add_permissions') next[kind][target] = union(list, names);
    else next[kind][target] = list.filter((n) => !has(names, n));
  }
  const touched = (kind: PermissionKind, target: PermissionTarget) =>
    entries.some((e) => e.kind === kind && e.target === target);
  for (const target of PERMISSION_TARGETS) {
    if (touched('change', target) && action !== 'remove_permissions')
      next.view[target] = union(next.view[target], next.change[target]);
    if (touched('view', target) && action !== 'add_permissions')
      next.change[target] = next.change[target].filter((n) => has(next.view[target], n));
  }
  return next;
}

/** The lists that differ, as `permissions.view.users` → from/to. */
export function permissionChanges(
  before: DocumentPermissions | null,
  after: DocumentPermissions | null,
): Record<string, FieldChange> {
  const out: Record<string, FieldChange> = {};
  if (!before || !after) return out;
  for (const kind of PERMISSION_KINDS) {
    for (const target of PERMISSION_TARGETS) {
      if (!sameNameSet(before[kind][target], after[kind][target]))
        out[`permissions.${kind}.${target}`] = { from: [...before[kind][target]], to: [...after[kind][target]] };
    }
  }
  return out;
}
