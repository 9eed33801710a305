import { DmsError } from './dms-errors.js';
import type { Transport } from './http-transport.js';
import type { DmsHistory, DmsHistoryEntry, DmsServiceUser } from './types.js';

// Who changed a document: Paperless's audit log (`DocumentViewSet.history`, documents/views.py, 2.16+) and the
// Paperless user the service's token belongs to (`UiSettingsView.get`).

/** Most entries kept from one history answer (newest first); older ones are dropped and `truncated` says so. */
export const MAX_HISTORY_ENTRIES = 500;

/** The audit log is switched off on the server (`PAPERLESS_AUDIT_LOG_ENABLED=false`): history answers 400. */
export class DmsAuditLogOffError extends DmsError {}

/** The token may not read this document's history: it lacks `auditlog.view_logentry` or does not own the document. */
export class DmsHistoryForbiddenError extends DmsError {}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseEntry(raw: unknown): DmsHistoryEntry | null {
  if (
    !isObject(raw) ||
    typeof raw.id !== 'number' ||
    typeof raw.timestamp !== 'string' ||
    typeof raw.action !== 'string'
  )
    return null;
  const actor =
    isObject(raw.actor) && typeof raw.actor.id === 'number'
      ? { id: raw.actor.id, username: String(raw.actor.username ?? '') }
      : null;
  return {
    id: raw.id,
    timestamp: raw.timestamp,
    action: raw.action,
    changes: isObject(raw.changes) ? raw.changes : {},
    actor,
  };
}

/**
 * `GET /api/documents/{id}/history/`: one unpaginated list, newest first, growing with the document's life; only
 * the newest `limit` entries are kept. Malformed entries are skipped; an answer that is not a list is an error.
 */
export async function readDocumentHistory(
  transport: Transport,
  id: number,
  notFound: string,
  limit = MAX_HISTORY_ENTRIES,
): Promise<DmsHistory> {
  const path = `/api/documents/${id}/history/`;
  let json: unknown;
  try {
    json = (await transport.send({ method: 'GET', path, idempotent: true, notFound })).json;
  } catch (err) {
    if (!(err instanceof DmsError)) throw err;
    if (err.dmsStatus === 400) {
      throw new DmsAuditLogOffError(
        `The dms's audit log is switched off (PAPERLESS_AUDIT_LOG_ENABLED), so who changed document ${id} cannot be read: ${err.message}`,
        err.request,
        400,
      );
    }
    if (err.dmsStatus === 403) {
      throw new DmsHistoryForbiddenError(
        `The dms token may not read the history of document ${id}: it needs the permission auditlog.view_logentry and must own the document (or be a superuser). ${err.message}`,
        err.request,
        403,
      );
    }
    throw err;
  }
  if (!Array.isArray(json))
    throw new DmsError(
      `dms answered GET ${path} with ${json === null ? 'nothing' : typeof json}, not a list of history entries`,
      `GET ${path}`,
      200,
    );
  const kept = json.slice(0, Math.max(0, limit));
  return {
    entries: kept.map(parseEntry).filter((e): e is DmsHistoryEntry => e !== null),
    truncated: json.length > kept.length,
  };
}

/**
 * `GET /api/ui_settings/`: the token's user, whether the audit log is on (`settings.auditlog_enabled`) and whether
 * the user may read histories (a superuser, or `view_logentry` among its permissions).
 */
export async function readServiceUser(transport: Transport): Promise<DmsServiceUser> {
  const res = await transport.send({ method: 'GET', path: '/api/ui_settings/', idempotent: true });
  const body = isObject(res.json) ? res.json : {};
  const user = isObject(body.user) ? body.user : {};
  if (typeof user.id !== 'number' || typeof user.username !== 'string') {
    throw new DmsError(
      'dms answered GET /api/ui_settings/ without the user the token belongs to',
      'GET /api/ui_settings/',
      res.status,
    );
  }
  const settings = isObject(body.settings) ? body.settings : {};
  const permissions = Array.isArray(body.permissions) ? body.permissions : [];
  const superuser = user.is_superuser === true;
  return {
    id: user.id,
    username: user.username,
    superuser,
    auditLogEnabled: typeof settings.auditlog_enabled === 'boolean' ? settings.auditlog_enabled : null,
    mayReadHistory: superuser || permissions.includes('view_logentry'),
  };
}
