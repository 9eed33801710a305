import { SimHttpError } from './http-kit.js';
import type { SimObject } from './sim-types.js';

const SERVER_ERROR_PAGE =
  '\n<!doctype html>\n<html lang="en">\n<head>\n  <title>Server Error (500)</title>\n</head>\n<body>\n  <h1>Server Error (500)</h1><p></p>\n</body>\n</html>\n';

// Paperless's own validation of custom-field values on write (§6); returns an error message or null.

const MONETARY = /^[A-Z]{3}-?\d+(\.\d{1,2})$/;
const PLAIN_MONEY = /^-?\d{1,10}(\.\d{1,2})?$/;

function pythonRepr(options: Array<{ id: string; label: string }>): string {
  return `[${options.map((o) => `{'id': '${o.id}', 'label': '${o.label}'}`).join(', ')}]`;
}

export function checkCustomFieldValue(field: SimObject, value: unknown): { error: string | null; stored: unknown } {
  if (value === null) return { error: null, stored: null };
  const extra = (field.extra_data ?? {}) as { select_options?: Array<{ id: string; label: string }> };
  switch (field.data_type) {
    case 'string':
      if (typeof value !== 'string') return { error: 'Not a valid string.', stored: value };
      if (Array.from(value).length > 128)
        return {
          error: `Ensure this value has at most 128 characters (it has ${Array.from(value).length}).`,
          stored: value,
        };
      return { error: null, stored: value };
    case 'longtext':
      return typeof value === 'string'
        ? { error: null, stored: value }
        : { error: 'Not a valid string.', stored: value };
    case 'url': {
      if (value === '') return { error: null, stored: value };
      try {
        const url = new URL(String(value));
        if (!url.protocol || (url.host === '' && url.pathname === '')) throw new Error('no host');
      } catch {
        return { error: 'Enter a valid URL.', stored: value };
      }
      // value_url is a Django URLField (max_length 200, in code points) that the serializer does not check:
      // PostgreSQL refuses the INSERT and Paperless answers a bare 500 (models.py, CustomFieldInstance).
      if (Array.from(String(value)).length > 200) throw new SimHttpError({ status: 500, text: SERVER_ERROR_PAGE });
      return { error: null, stored: value };
    }
    case 'date':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value))
        ? { error: null, stored: value }
        : { error: 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.', stored: value };
    case 'boolean':
      return typeof value === 'boolean'
        ? { error: null, stored: value }
        : { error: 'Must be a valid boolean.', stored: value };
    case 'integer': {
      const n =
        typeof value === 'number'
          ? value
          : typeof value === 'string' && /^-?\d+$/.test(value.trim())
            ? Number(value)
            : NaN;
      if (!Number.isInteger(n)) return { error: 'A valid integer is required.', stored: value };
      if (n < -2147483648 || n > 2147483647)
        return { error: 'Ensure this value is less than or equal to 2147483647.', stored: value };
      return { error: null, stored: n };
    }
    case 'float':
      return typeof value === 'number'
        ? { error: null, stored: value }
        : { error: 'A valid number is required.', stored: value };
    case 'monetary': {
      const text = typeof value === 'number' ? String(value) : String(value);
      if (MONETARY.test(text)) return { error: null, stored: text };
      if (PLAIN_MONEY.test(text)) return { error: null, stored: String(Number(text)) };
      return { error: 'Must be a two-decimal number with optional currency code e.g. GBP123.45', stored: value };
    }
    case 'select': {
      const options = extra.select_options ?? [];
      return options.some((o) => o.id === value)
        ? { error: null, stored: value }
        : { error: `Value must be an id of an element in ${pythonRepr(options)}`, stored: value };
    }
    case 'documentlink':
      return Array.isArray(value) && value.every((v) => Number.isInteger(v))
        ? { error: null, stored: value }
        : { error: 'Value must be a list of document ids.', stored: value };
    default:
      return { error: null, stored: value };
  }
}
