import { account as newAccount } from '../../server/dms/demo/seed-accounts.js';
import { accountUser, type ExtraGrants, type SimUser } from '../../server/dms/demo/sim-users.js';
import type { SimStore } from '../../server/dms/demo/store.js';

// A second API user for tests: no superuser, with the model permissions, groups and object grants a test gives it.

export interface LimitedUserOptions {
  /** API token (40 hex characters); random when absent. */
  token?: string;
  /** User id (objects owned by it are visible); default 4. */
  id?: number;
  username?: string;
  /** Django model permissions by codename, e.g. `view_document`, `change_document`, `view_tag` (the user's own; its groups' add to them). */
  permissions: string[];
  /** Ids of the groups it belongs to (default: the seeded account's, i.e. [1] Family for ben). */
  groups?: number[];
  /** Object-level `view`/`change` grants on objects owned by someone else (ids per kind), besides the documents' stored ones. */
  grants?: ExtraGrants;
}

/**
 * Stores the limited user's account (its permissions and groups; the seeded one with its id is the base) and
 * returns the caller that reads it: model permissions are its own plus its groups', as Django's ModelBackend has them.
 */
export function registerLimitedUser(store: SimStore, options: LimitedUserOptions): SimUser {
  const id = options.id ?? 4;
  store.putAccount(
    newAccount(
      {
        id,
        username: options.username,
        is_staff: false,
        is_superuser: false,
        groups: options.groups,
        user_permissions: [...options.permissions],
      },
      store.account(id),
    ),
  );
  return accountUser(store, id, options.grants);
}
