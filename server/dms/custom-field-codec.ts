import type { CustomFieldValue, MoneyValue } from '../engine/model.js';
import { DmsValueError } from './dms-errors.js';
import type { DmsCustomField } from './types.js';

// Paperless stores monetary values as "EUR84.37", or legacy plain "84.37".
const MONETARY_WIRE = /^([A-Z]{3})?(-?\d+(?:\.\d+)?)$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})/;
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const STRING_MAX = 128;
// Django's URLField default max_length; Paperless's value_url has no other limit.
const URL_MAX = 200;
/** Length as Paperless (Python) counts it: code points, not UTF-16 units. */
const codePointLength = (text: string) => Array.from(text).length;
// Paperless: at most 12 digits with at most 2 decimals, so 10 before the point.
const MONETARY_MAX = 9_999_999_999.99;

function isMoney(value: unknown): value is MoneyValue {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'amount' in value;
}

/** A dms custom-field value (wire form) → the engine's value space (see `CustomFieldValue`). */
export function decodeCustomFieldValue(field: DmsCustomField, raw: unknown): CustomFieldValue {
  if (raw === null || raw === undefined) return null;
  switch (field.data_type) {
    case 'monetary': {
      const defaultCurrency = field.extra_data.default_currency || null;
      if (typeof raw === 'number') return { amount: raw, currency: defaultCurrency };
      const match = MONETARY_WIRE.exec(String(raw).trim());
      if (!match) return String(raw);
      return { amount: Number(match[2]), currency: match[1] ?? defaultCurrency };
    }
    case 'select': {
      const option = (field.extra_data.select_options ?? []).find((o) => o.id === raw);
      return option ? option.label : String(raw);
    }
    case 'date': {
      const match = ISO_DATE.exec(String(raw));
      return match ? match[0] : String(raw);
    }
    case 'documentlink':
      return Array.isArray(raw) ? raw.map(Number) : [Number(raw)];
    case 'integer':
    case 'float':
      return typeof raw === 'number' ? raw : Number(raw);
    case 'boolean':
      return raw === true || raw === 'true';
    default:
      return typeof raw === 'string' ? raw : String(raw);
  }
}

function fail(field: DmsCustomField, value: unknown, why: string): never {
  const shown = typeof value === 'string' ? `"${value}"` : JSON.stringify(value);
  throw new DmsValueError(`Custom field "${field.name}" (${field.data_type}): ${shown} ${why}`, field.name);
}

function toNumber(field: DmsCustomField, value: unknown): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value.trim())))
    return Number(value.trim());
  return fail(field, value, 'is not a number; write it with a decimal point, e.g. 1234.56.');
}

function encodeMonetary(field: DmsCustomField, value: unknown): string {
  let amount: number;
  let currency: string | null = null;
  if (isMoney(value)) {
    amount = toNumber(field, value.amount);
    currency = value.currency;
  } else if (typeof value === 'string' && MONETARY_WIRE.test(value.trim())) {
    const match = MONETARY_WIRE.exec(value.trim()) as RegExpExecArray;
    amount = Number(match[2]);
    currency = match[1] ?? null;
  } else {
    amount = toNumber(field, value);
  }
  currency = currency || field.extra_data.default_currency || null;
  // Without a prefix Paperless stores the value but its own amount column misreads it: always send one.
  if (currency === null)
    fail(
      field,
      value,
      'has no currency; write it with one (e.g. EUR12.50) or give the field a default currency in Paperless.',
    );
  if (!/^[A-Z]{3}$/.test(currency)) {
    fail(field, value, `has currency "${currency}"; use a 3-letter ISO code such as EUR.`);
  }
  if (Math.abs(amount) > MONETARY_MAX) fail(field, value, 'is too large (at most 10 digits before the decimal point).');
  // Paperless wants the decimal point and at most 2 decimals: round to cents.
  const fixed = (Math.round(amount * 100) / 100).toFixed(2);
  return `${currency}${fixed}`;
}

function encodeSelect(field: DmsCustomField, value: unknown): string {
  const options = field.extra_data.select_options ?? [];
  const text = String(value).trim();
  const byLabel = options.find((o) => o.label.toLowerCase() === text.toLowerCase());
  const option = byLabel ?? options.find((o) => o.id === text);
  if (!option) {
    return fail(
      field,
      value,
      `is not one of its options: ${options.map((o) => `"${o.label}"`).join(', ') || '(none)'}.`,
    );
  }
  return option.id;
}

function encodeDate(field: DmsCustomField, value: unknown): string {
  const match = typeof value === 'string' ? ISO_DATE.exec(value.trim()) : null;
  if (!match) return fail(field, value, 'is not an ISO date; write yyyy-MM-dd, e.g. 2025-03-20.');
  const [, y, m, d] = match;
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  if (date.getUTCMonth() !== Number(m) - 1 || date.getUTCDate() !== Number(d))
    fail(field, value, 'is not a real date.');
  return match[0];
}

function encodeBoolean(field: DmsCustomField, value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  const text = String(value).trim().toLowerCase();
  if (['true', 'yes', 'ja', '1'].includes(text)) return true;
  if (['false', 'no', 'nein', '0'].includes(text)) return false;
  return fail(field, value, 'is not a boolean; use true or false.');
}

function encodeUrl(field: DmsCustomField, value: unknown): string {
  const text = String(value).trim();
  if (text === '') return '';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return fail(field, value, 'is not a URL; include the scheme, e.g. https://example.com/.');
  }
  if (url.host === '' && (url.pathname === '' || url.pathname === '/')) fail(field, value, 'needs a host or a path.');
  const length = codePointLength(text);
  if (length > URL_MAX)
    fail(
      field,
      `${Array.from(text).slice(0, 40).join('')}…`,
      `is ${length} characters long; Paperless keeps URLs of at most ${URL_MAX}.`,
    );
  return text;
}

function encodeDocumentLink(field: DmsCustomField, value: unknown): number[] {
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value];
  return items.map((item) => {
    const id = typeof item === 'number' ? item : Number(String(item).trim());
    if (!Number.isInteger(id) || id <= 0) fail(field, value, 'must be document ids (positive integers).');
    return id;
  });
}

/** An engine value → the wire value Paperless accepts for this field; throws DmsValueError when it cannot. */
export function encodeCustomFieldValue(field: DmsCustomField, value: CustomFieldValue): unknown {
  if (value === null) return null;
  switch (field.data_type) {
    case 'monetary':
      return encodeMonetary(field, value);
    case 'select':
      return encodeSelect(field, value);
    case 'date':
      return encodeDate(field, value);
    case 'boolean':
      return encodeBoolean(field, value);
    case 'integer': {
      const n = toNumber(field, value);
      if (!Number.isInteger(n)) fail(field, value, 'is not a whole number.');
      if (n < INT32_MIN || n > INT32_MAX)
        fail(field, value, `is outside the 32-bit range (${INT32_MIN} to ${INT32_MAX}).`);
      return n;
    }
    case 'float':
      return toNumber(field, value);
    case 'url':
      return encodeUrl(field, value);
    case 'documentlink':
      return encodeDocumentLink(field, value);
    case 'string': {
      if (isMoney(value) || Array.isArray(value)) fail(field, value, 'is not text.');
      const text = String(value);
      const length = codePointLength(text);
      if (length > STRING_MAX)
        fail(
          field,
          `${Array.from(text).slice(0, 40).join('')}…`,
          `is ${length} characters long; at most ${STRING_MAX} fit.`,
        );
      return text;
    }
    default: {
      if (isMoney(value) || Array.isArray(value)) fail(field, value, 'is not text.');
      return String(value);
    }
  }
}
