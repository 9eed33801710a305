import { BadRequestError } from '../../errors.js';

/** Which rules a delivery selects: `unknown` (no event field) runs rules for both added and updated. */
export type WebhookTrigger = 'added' | 'updated' | 'unknown';

export interface WebhookPayload {
  document: number;
  trigger: WebhookTrigger;
}

const ID_KEYS = ['doc_id', 'document_id', 'id'] as const;
const EVENT_KEYS = ['event', 'trigger'] as const;

/**
 * Finds the document id and trigger in whatever a Paperless workflow webhook sent (paperless-api.md §7.3):
 * the fields are already decoded (JSON object, form or multipart fields); values may be strings or numbers.
 * Throws BadRequestError when no document id can be found.
 */
export function payloadFromFields(fields: Record<string, unknown>): WebhookPayload {
  let document: number | undefined;
  for (const key of ID_KEYS) {
    document = asId(fields[key]);
    if (document !== undefined) break;
  }
  document ??= idFromDocUrl(fields.doc_url);
  if (document === undefined) {
    const keys = Object.keys(fields);
    throw new BadRequestError(
      `No document id in the webhook body${keys.length ? ` (fields: ${keys.slice(0, 10).join(', ')})` : ' (it was empty)'}. ` +
        'In the Paperless workflow webhook action, add a parameter doc_id = {{ doc_id }} (or doc_url = {{ doc_url }}).',
    );
  }
  let trigger: WebhookTrigger = 'unknown';
  for (const key of EVENT_KEYS) {
    const t = asTrigger(fields[key]);
    if (t) {
      trigger = t;
      break;
    }
  }
  return { document, trigger };
}

/**
 * Decodes a raw text body: a JSON object, a JSON string literal that holds JSON (as_json with a raw
 * body template), or form-urlencoded text when there was no usable Content-Type.
 */
export function fieldsFromText(text: string): Record<string, unknown> {
  const trimmed = text.trim();
  if (trimmed === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    // Not JSON: Paperless sends a raw body template as-is, often without a Content-Type; try form encoding.
    return trimmed.includes('=') ? Object.fromEntries(new URLSearchParams(trimmed)) : {};
  }
  // A JSON string literal is the as_json quirk: the rendered body was encoded once more.
  if (typeof value === 'string') return fieldsFromText(value);
  if (typeof value === 'number') return { id: value };
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  throw new BadRequestError('The webhook body is JSON but not an object: send {"doc_id": "{{ doc_id }}"}.');
}

function asId(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  if (!/^\d{1,15}$/.test(trimmed)) return undefined;
  const n = Number(trimmed);
  return n > 0 ? n : undefined;
}

/** `doc_url` is the web UI link `…/documents/<id>/`; it may start with `None/` when PAPERLESS_URL is unset. */
export function idFromDocUrl(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  let pathname = value.trim();
  try {
    pathname = new URL(pathname).pathname;
  } catch {
    // relative or `None/documents/10/`: match the text itself
  }
  const match = /(?:^|\/)documents\/(\d{1,15})\/?(?:details\/?)?$/.exec(pathname);
  return match ? asId(match[1]) : undefined;
}

function asTrigger(value: unknown): WebhookTrigger | undefined {
  if (typeof value !== 'string') return undefined;
  const v = value.trim().toLowerCase().replace(/[\s-]+/g, '_');
  if (v === 'added' || v === 'document_added' || v === 'consumption_finished') return 'added';
  if (v === 'updated' || v === 'document_updated') return 'updated';
  return undefined;
}
