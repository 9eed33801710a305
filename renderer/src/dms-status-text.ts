// What the settings page says about the dms connection, as plain lines (pure, so it is unit-tested).
import type { DmsHealth } from './types.js';

export interface StatusLine {
  id:
    | 'dms-status-version'
    | 'dms-status-error'
    | 'dms-status-forbidden'
    | 'dms-status-supported'
    | 'dms-status-release'
    | 'dms-status-concurrency';
  kind: 'ok' | 'error' | 'warning' | 'note';
  text: string;
}

/** "The token may not view custom fields (view_customfield): …", for the settings' status and "Test connection". */
export function notViewable(forbidden: DmsHealth['forbidden']): string {
  const names = forbidden.map((f) => `${f.kind.replace(/_/g, ' ')} (${f.permission})`).join(', ');
  return `The token may not view ${names}: rules that use them fail with a trace that says so.`;
}

/**
 * Why the dms cannot be used, in plain words, or null when it can: "Paperless at http://p does not answer
 * (connection refused)" instead of "GET /api/ … ECONNREFUSED after 4 attempts".
 */
export function dmsProblemText(dms: DmsHealth): string | null {
  if (dms.reachable) return null;
  const where = dms.demo ? 'The built-in demo dms' : `Paperless at ${dms.url}`;
  const error = dms.error ?? '';
  if (/ECONNREFUSED|connection refused/i.test(error))
    return `${where} does not answer (connection refused). Is it running, and is the address right?`;
  if (/ENOTFOUND|EAI_AGAIN|getaddrinfo/i.test(error))
    return `${where} cannot be found: its host name does not resolve.`;
  if (/ECONNRESET|socket hang up|other side closed/i.test(error))
    return `${where} closed the connection without an answer.`;
  if (/timed? ?out|ETIMEDOUT|UND_ERR_.*TIMEOUT/i.test(error)) return `${where} does not answer in time.`;
  if (/\b404\b/.test(error))
    return `${dms.url} is not a Paperless-ngx API (it answered 404 Not Found): give the Paperless base URL, without /api.`;
  if (/\b401\b/.test(error)) return `${where} refuses the token: check SVC_DMS_TOKEN (Settings).`;
  return `${where} cannot be used: ${error || 'it does not answer.'}`;
}

export function dmsStatusLines(dms: DmsHealth): StatusLine[] {
  const lines: StatusLine[] = [];
  if (dms.reachable && dms.demo) {
    // The demo dms poses as a Paperless release for its API; the admin should not read that as their Paperless.
    lines.push({
      id: 'dms-status-version',
      kind: 'ok',
      text: 'Connected to the built-in demo dms: sample documents, changes kept in memory only.',
    });
  } else if (dms.reachable) {
    const api = dms.api_version ? ` (API version ${dms.api_version})` : '';
    lines.push({
      id: 'dms-status-version',
      kind: 'ok',
      text: `Connected to Paperless-ngx ${dms.version ?? '(version not reported)'}${api}. Address: ${dms.url}`,
    });
  } else {
    lines.push({ id: 'dms-status-error', kind: 'error', text: `Not connected: ${dmsProblemText(dms)}` });
  }
  if (dms.forbidden.length > 0) {
    lines.push({
      id: 'dms-status-forbidden',
      kind: 'warning',
      text: `${notViewable(dms.forbidden)} Grant the permission in Paperless to use them.`,
    });
  }
  if (dms.reachable && dms.release_group && (dms.release_differences ?? []).length > 0) {
    lines.push({
      id: 'dms-status-release',
      kind: 'note',
      text: `For Paperless-ngx ${dms.release_group}: ${(dms.release_differences ?? []).join(' ')}`,
    });
  }
  const workers = dms.serves_at_once;
  if (dms.reachable && typeof workers === 'number') {
    const each = workers === 1 ? 'its one web worker' : `each of its ${workers} web workers`;
    lines.push({
      id: 'dms-status-concurrency',
      kind: 'note',
      text: `A run-all keeps ${workers + 1} requests at Paperless at most: one for ${each} (SVC_DMS_WORKERS) and one waiting, so a click in Paperless waits behind no more of them.`,
    });
  }
  if (dms.supported_versions)
    lines.push({
      id: 'dms-status-supported',
      kind: 'note',
      text: `Supported: Paperless-ngx ${dms.supported_versions}.`,
    });
  return lines;
}
