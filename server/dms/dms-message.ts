// Turns a dms error answer into one line a person can act on, keeping the dms's own words.

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

/** The dms's own message from a response body: `detail`, field errors (`tags: Invalid pk …`) or plain text. */
export function dmsMessage(body: string): string {
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
    if (parts.length > 0) return parts.join('; ').slice(0, MAX_TEXT);
  } catch {
    // Not JSON: Paperless answers some errors as plain text (bulk edit, 5xx from a proxy).
  }
  return text.replace(/\s+/g, ' ').slice(0, MAX_TEXT);
}
