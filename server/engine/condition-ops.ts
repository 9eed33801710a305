/** The condition operators as plain functions of (field value, operand), shared by every field kind. */
import type { FieldKind } from './fields.js';
import { isMoneyValue, parseBool, parseMoney, parseNumber } from './parse-number.js';
import { parseDateAuto, resolveRelativeDate } from './parse-date.js';
import { describeValue, shortenValue, textAround } from './describe.js';

export interface OpContext {
  kind: FieldKind;
  caseSensitive: boolean;
  now: Date;
}

export function fold(s: string, caseSensitive: boolean): string {
  return caseSensitive ? s : s.toLocaleLowerCase();
}

export function isEmptyValue(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (typeof v === 'string') return v.trim() === '';
  if (Array.isArray(v)) return v.length === 0;
  return false;
}

/** Text form of a value for text operators; money reads as its amount with two places. */
export function asText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (isMoneyValue(v)) return `${v.currency ?? ''}${v.amount.toFixed(2)}`;
  return JSON.stringify(v);
}

function looksLikeDate(s: string): boolean {
  return /^\d{4}-\d{2}-\d{2}/.test(s);
}

/** Equality of one field value with one operand; lists hold when any element is equal. */
export function equalsValue(v: unknown, x: unknown, c: OpContext): boolean {
  if (Array.isArray(v)) return v.some((e) => equalsValue(e, x, c));
  if (x === null) return isEmptyValue(v);
  if (v === null || v === undefined) return false;
  if (isMoneyValue(v)) {
    const other = typeof x === 'number' ? { amount: x, currency: null } : parseMoney(String(x));
    return !!other && other.amount === v.amount && (!other.currency || !v.currency || other.currency === v.currency);
  }
  if (typeof v === 'number') return (typeof x === 'number' ? x : parseNumber(String(x))) === v;
  if (typeof v === 'boolean') return (typeof x === 'boolean' ? x : parseBool(String(x))) === v;
  const text = String(v);
  const operand = String(x);
  // A date field compares by calendar day: created: 2024-03-01 matches 2024-03-01T10:00:00+01:00.
  if ((c.kind === 'date' || c.kind === 'custom') && looksLikeDate(text) && /^\d{4}-\d{2}-\d{2}$/.test(operand))
    return text.slice(0, 10) === operand;
  return fold(text, c.caseSensitive) === fold(operand, c.caseSensitive);
}

export function containsValue(v: unknown, x: unknown, c: OpContext): boolean {
  if (Array.isArray(v)) return v.some((e) => equalsValue(e, x, c));
  const text = asText(v);
  return text !== null && fold(text, c.caseSensitive).includes(fold(String(x), c.caseSensitive));
}

/** Texts up to this length are shown whole in a trace; a longer one shows where a word was found. */
const MAX_SHOWN = 120;

/** `contains` / `contains_any`: whether one holds, what was seen, and in a long text where the word was found. */
export function applyContains(wanted: unknown[], v: unknown, c: OpContext): [boolean, string, string?] {
  const found = wanted.find((x) => containsValue(v, x, c));
  if (found === undefined) return [false, `false (saw ${describeValue(shortenValue(v))})`];
  const text = Array.isArray(v) ? null : asText(v);
  if (text === null || text.length <= MAX_SHOWN) return [true, `true (saw ${describeValue(shortenValue(v))})`];
  const at = fold(text, c.caseSensitive).indexOf(fold(String(found), c.caseSensitive));
  const where = `at character ${(at + 1).toLocaleString('en-US')} of ${text.length.toLocaleString('en-US')}`;
  return [true, `true (found ${describeValue(String(found))} ${where})`, textAround(text, at, String(found).length)];
}

export function affixValue(v: unknown, x: string, c: OpContext, end: boolean): boolean {
  if (Array.isArray(v)) return v.some((e) => affixValue(e, x, c, end));
  const text = asText(v);
  if (text === null) return false;
  const a = fold(text, c.caseSensitive);
  const b = fold(x, c.caseSensitive);
  return end ? a.endsWith(b) : a.startsWith(b);
}

/** The comparable form of an operand: a number, or an ISO date for date fields, relative dates resolved. */
export function comparableOperand(x: number | string, kind: FieldKind, now: Date): number | string | null {
  if (typeof x === 'number') return x;
  const relative = resolveRelativeDate(x, now);
  if (relative) return relative;
  const date = parseDateAuto(x);
  if (date) return date;
  if (kind === 'date') return null;
  return parseNumber(x);
}

/** Compares a field value with a resolved operand; null when they cannot be compared. */
export function compareValues(v: unknown, operand: number | string): number | null {
  if (v === null || v === undefined) return null;
  if (typeof operand === 'string') {
    const text = typeof v === 'string' ? v : null;
    if (!text) return null;
    const iso = looksLikeDate(text) ? text.slice(0, 10) : parseDateAuto(text);
    if (!iso) return null;
    return iso < operand ? -1 : iso > operand ? 1 : 0;
  }
  const n = isMoneyValue(v) ? v.amount : typeof v === 'number' ? v : typeof v === 'string' ? parseNumber(v) : null;
  if (n === null) return null;
  return n < operand ? -1 : n > operand ? 1 : 0;
}

export function tagSet(v: unknown, caseSensitive: boolean): Set<string> {
  const list = Array.isArray(v) ? v : [];
  return new Set(list.map((t) => fold(String(t), caseSensitive)));
}
