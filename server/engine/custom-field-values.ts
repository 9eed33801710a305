/** Converting values for custom fields by the dms field's data type, and comparing them for idempotency. */
import type { CustomFieldDataType } from '../dms/types.js';
import type { CustomFieldValue } from './model.js';
import { ConversionError } from './rule-errors.js';
import { formatAmount, isMoneyValue, parseBool, parseInteger, parseMoney, parseNumber } from './parse-number.js';
import { parseDate } from './parse-date.js';
import type { TypedValue } from './extraction.js';

function text(v: TypedValue): string {
  if (isMoneyValue(v)) return formatAmount(v.amount);
  return String(v);
}

/**
 * Converts a typed or rendered value to what a field of `dataType` holds. Without a known type the
 * value is kept as it is (typed values stay typed). Empty text clears the field (null).
 */
export function toCustomFieldValue(
  field: string,
  v: TypedValue,
  dataType: CustomFieldDataType | undefined,
): CustomFieldValue {
  if (v === null || (typeof v === 'string' && v.trim() === '')) return null;
  const fail = (what: string): never => {
    throw new ConversionError(
      `custom field "${field}" is ${what}; ${JSON.stringify(isMoneyValue(v) ? formatAmount(v.amount) : v)} cannot be converted`,
    );
  };
  switch (dataType) {
    case undefined:
      return v;
    case 'monetary': {
      if (isMoneyValue(v)) return v;
      if (typeof v === 'number') return { amount: v, currency: null };
      return parseMoney(String(v)) ?? fail('monetary (an amount such as 1234.56 or EUR1234.56)');
    }
    case 'integer': {
      if (typeof v === 'number') return Number.isInteger(v) ? v : fail('an integer');
      return parseInteger(text(v)) ?? fail('an integer');
    }
    case 'float':
      if (typeof v === 'number') return v;
      return (isMoneyValue(v) ? v.amount : parseNumber(String(v))) ?? fail('a number');
    case 'boolean':
      if (typeof v === 'boolean') return v;
      return parseBool(text(v)) ?? fail('a yes/no value');
    case 'date':
      return parseDate(text(v)) ?? fail('a date (yyyy-MM-dd, dd.MM.yyyy, …)');
    case 'documentlink': {
      const ids = text(v)
        .split(/[\s,;]+/)
        .filter(Boolean)
        .map(Number);
      return ids.every((n) => Number.isInteger(n) && n > 0) ? ids : fail('a list of document ids');
    }
    case 'string':
    case 'longtext':
    case 'url':
    case 'select':
      return text(v).trim();
  }
}

/** Equal for idempotency: money without a currency equals the same amount in any currency. */
export function sameCustomValue(a: CustomFieldValue | undefined, b: CustomFieldValue | undefined): boolean {
  if (isMoneyValue(a) && isMoneyValue(b))
    return a.amount === b.amount && (!a.currency || !b.currency || a.currency === b.currency);
  if (isMoneyValue(a) || isMoneyValue(b)) {
    const m = isMoneyValue(a) ? a : (b as { amount: number });
    const other = isMoneyValue(a) ? b : a;
    return typeof other === 'number'
      ? other === m.amount
      : typeof other === 'string'
        ? parseMoney(other)?.amount === m.amount
        : false;
  }
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => x === b[i]);
  if ((a === undefined || a === null) && (b === undefined || b === null)) return a === b || (a === null && b === null);
  return a === b;
}
