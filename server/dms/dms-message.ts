// Turns a dms error answer into one line a person can act on, keeping the dms's own words (secrets it echoes redacted).
import { redact } from '../redaction.js';

const MAX_TEXT = 300;

function flatten(value: unknown, prefix: string): string[] {
  if (value === null || value === undefined) return [];
  if (typeof value !== 'object') return [`${prefix}${String(value)}`];
  if (Array.isArray(value)) {
    return value.flatMap((item, i) =>
      typeof item === 'object' && item !== null
        ? flatten(item, `${prefix.replace(/: $/, '')}[${i}] `)
        : flatten(item, prefix),
    );
  }
  return Object.entries(value as Record<string, unknown>).flatMap(([key, inner]) => {
    const label = key === 'detail' || key === 'non_field_errors' || key === 'error' ? '' : `${key}: `;
    return flatten(inner, `${prefix}${label}`);
  });
}

/**
 * The dms's own message from a response body: `detail`, field errors (`tags: Invalid pk …`) or plain text. Redacted
 * before it is cut short, so a token the dms echoes (a proxy's error page that quotes the request's headers) is
 * never stored in a trace, event, log line or answer, whole or in part.
 */
export function dmsMessage(body: string, secrets: ReadonlyArray<string | null | undefined> = []): string {
  return redact(fullMessage(body).slice(0, MAX_TEXT * 4), secrets).slice(0, MAX_TEXT);
}

function fullMessage(body: string): string {
  const text = body.trim();
  // Paperless labels some plain-text errors text/html, so judge by the body, not the header.
  if (text.startsWith('<')) {
    const title = /<title>([^<]*)<\/title>/i.exec(text)?.[1]?.trim();
    const hint = 'an HTML page instead of JSON (is the URL the Paperless base URL?)';
    return title ? `${title} (${hint})` : hint;
  }
  if (text === '') return 'no message';
  try {
    const parsed: unknown = JSON.parse(text);
    const parts = flatten(parsed, '');
    if (parts.length > 0) return parts.join('; ');
  } catch {
    // Not JSON: Paperless answers some errors as plain text (bulk edit, 5xx from a proxy).
  }
  return text.slice(0, MAX_TEXT * 8).replace(/\s+/g, ' ');
}
