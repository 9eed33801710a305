import { BadRequestError } from '../../app-errors.js';

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
  if (document === undefined) throw new BadRequestError(missingIdMessage(fields));
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

const ADD_DOC_ID =
  'In the Paperless workflow webhook action, add a parameter doc_id = {{ doc_id }} (Paperless-ngx 3.0 and later) or doc_url = {{ doc_url }} ' +
  '(any version: before 3.0 there is no {{ doc_id }}, and Paperless drops the parameters when one names it).';

/**
 * Why a delivery names no document, in the terms of the Paperless workflow screen. Two real shapes get
 * their own answer (docs/decisions.md "Webhook bodies without a document"): "Consumption Started" fills
 * doc_id with "" because the document does not exist yet, and "include document" with "send as JSON"
 * makes Paperless send only the file, so the body has no fields at all.
 */
function missingIdMessage(fields: Record<string, unknown>): string {
  const keys = Object.keys(fields);
  const docId = fields.doc_id;
  if ('doc_id' in fields && (docId === null || (typeof docId === 'string' && docId.trim() === ''))) {
    return (
      'The webhook came with an empty doc_id: Paperless sends that for the "Consumption Started" trigger, before the document exists. ' +
      'Remove that trigger from the workflow; use "Document Added" and "Document Updated".'
    );
  }
  if (keys.length === 0) {
    return (
      'No document id in the webhook body (it was empty). If the workflow\'s webhook action has "Include document" on, turn it off: ' +
      'with "Send webhook payload as JSON" Paperless then sends only the file and drops the parameters. Otherwise: ' +
      ADD_DOC_ID
    );
  }
  const odd = ID_KEYS.filter((key) => key in fields && typeof fields[key] === 'object' && fields[key] !== null);
  if (odd.length > 0)
    return `The webhook's ${odd[0]} is ${Array.isArray(fields[odd[0]]) ? 'a list' : 'an object'}, not a document id (a number). ${ADD_DOC_ID}`;
  return `No document id in the webhook body (fields: ${keys
    .slice(0, 10)
    .map((key) => key.slice(0, 40))
    .join(', ')}). ${ADD_DOC_ID}`;
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
  const v = value
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  if (v === 'added' || v === 'document_added' || v === 'consumption_finished') return 'added';
  if (v === 'updated' || v === 'document_updated') return 'updated';
  return undefined;
}
