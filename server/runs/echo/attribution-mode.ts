import type { DmsServiceUser } from '../../dms/types.js';

/** How the service tells its own echo from a person's change (health and the connection test show it). */
export interface AttributionStatus {
  mode: 'audit-log' | 'state';
  /** The Paperless user whose changes are the service's own (audit-log mode). */
  user: string | null;
  /** Why the audit log is not used, or what it cannot see. */
  note: string;
}

export const STATE_NOTE =
  'A permission-only change is not in the audit log and is recognised by the document state in either mode.';

/** Why the audit log cannot tell this token's changes from a person's, or null when it can. */
export function stateOnlyReason(user: DmsServiceUser): string | null {
  if (user.auditLogEnabled === false) return "the dms's audit log is switched off (PAPERLESS_AUDIT_LOG_ENABLED)";
  if (!user.mayReadHistory)
    return `the dms user "${user.username}" may not read the audit log (it needs auditlog.view_logentry, or be a superuser)`;
  return null;
}

/** The attribution mode for a token's Paperless user: the audit log where it can be read, else the state. */
export function attributionFor(user: DmsServiceUser | null, fallback: string | null = null): AttributionStatus {
  const reason = fallback ?? (user ? stateOnlyReason(user) : null);
  if (reason !== null) return { mode: 'state', user: user?.username ?? null, note: `${reason}. ${STATE_NOTE}` };
  if (!user)
    return { mode: 'state', user: null, note: 'Not known yet: decided at the first change the service wrote.' };
  return {
    mode: 'audit-log',
    user: user.username,
    note: `Changes by the dms user "${user.username}" that match what the service wrote are its own; give the service a Paperless user of its own, or a person's edit made with the same account to the same fields is taken for the service's. ${STATE_NOTE}`,
  };
}
