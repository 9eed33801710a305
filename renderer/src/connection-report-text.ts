// What "Test connection" found, as plain lines (pure, so it is unit-tested).
import { notViewable } from './dms-status-text.js';
import type { DmsHealth } from './types.js';

export interface ConnectionReport {
  ok: boolean;
  url: string;
  version?: string;
  error?: string;
  visible?: Record<string, number>;
  vocabulary_error?: string;
  /** Further facts the dms client learns to report (permissions, …) are shown as they come. */
  [fact: string]: unknown;
}

const KNOWN = new Set([
  'ok',
  'url',
  'version',
  'error',
  'visible',
  'vocabulary_error',
  'releaseGroup',
  'releaseDifferences',
  'attribution',
  'apiVersion',
  'serverApiVersion',
  'supportedVersions',
  'forbidden',
  'checkedAt',
  'reachable',
]);

/** `document_types` → `document types`. */
const words = (key: string): string => key.replace(/_/g, ' ');

interface Attribution {
  mode: 'audit-log' | 'state';
  user: string | null;
  note: string;
}

/** Which way the service would tell its own changes from a person's with this connection, and why. */
export function attributionLine(a: Attribution): string {
  return a.mode === 'audit-log'
    ? `Own changes vs a person's: by Paperless's audit log. ${a.note}`
    : `Own changes vs a person's: by the document state only, because ${a.note}`;
}

/** One line per finding, in words. */
export function describeReport(r: ConnectionReport): string[] {
  if (!r.ok) {
    // Paperless answering 401/403 is reachable: the token is what is wrong.
    if (/\b40[13]\b|token|authenticat|permission/i.test(r.error ?? ''))
      return [`Reachable at ${r.url}, but the token was refused: ${r.error}`];
    return [`Not reachable at ${r.url}: ${r.error ?? 'no answer'}`];
  }
  const lines = [`Reachable at ${r.url}${r.version ? `: Paperless-ngx ${r.version}` : ''}.`];
  if (r.visible) {
    const parts = Object.entries(r.visible).map(([kind, n]) => `${n} ${words(kind)}`);
    lines.push(`The token may see ${parts.join(', ')}.`);
  }
  if (typeof r.apiVersion === 'number') {
    const newest = typeof r.serverApiVersion === 'number' ? ` (Paperless allows up to ${r.serverApiVersion})` : '';
    lines.push(`The service speaks API version ${r.apiVersion} with it${newest}.`);
  }
  if (typeof r.supportedVersions === 'string') lines.push(`Supported: Paperless-ngx ${r.supportedVersions}.`);
  if (Array.isArray(r.forbidden)) {
    const forbidden = r.forbidden as DmsHealth['forbidden'];
    lines.push(forbidden.length === 0 ? 'The token may view everything the rules use.' : notViewable(forbidden));
  }
  if (r.vocabulary_error) lines.push(`The names could not be read: ${r.vocabulary_error}`);
  const differences = Array.isArray(r.releaseDifferences) ? (r.releaseDifferences as string[]) : [];
  if (typeof r.releaseGroup === 'string' && differences.length > 0)
    lines.push(`For Paperless-ngx ${r.releaseGroup}: ${differences.join(' ')}`);
  const attribution = r.attribution as Attribution | undefined;
  if (attribution && typeof attribution.note === 'string') lines.push(attributionLine(attribution));
  for (const [fact, value] of Object.entries(r)) {
    if (KNOWN.has(fact) || value === undefined || value === null) continue;
    lines.push(`${words(fact)}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`);
  }
  return lines;
}
