/**
 * Locale-aware number and money parsing: German (1.234,56) and English (1,234.56) forms, with or
 * without a currency symbol or ISO code on either side.
 */
import type { MoneyValue } from './model.js';

const SYMBOLS: Record<string, string> = {
  '€': 'EUR',
  $: 'USD',
  '£': 'GBP',
  '¥': 'JPY',
  '₹': 'INR',
  'Fr.': 'CHF',
  'fr.': 'CHF',
  zł: 'PLN',
  kr: 'SEK',
};
// Also matches the dms wire form EUR84.37, where no word boundary separates code and amount.
const CODE = /(?:^|[^A-Za-z])([A-Z]{3})(?![A-Za-z])/;

/**
 * Parses `1.234,56`, `1,234.56`, `1234.56`, `84,37`, `-12`, `1'234.50`.
 * With both separators the later one is the decimal mark; a single separator followed by exactly
 * three digits (and no leading zero) groups thousands (`1.234` is 1234); otherwise it is the decimal mark.
 */
export function parseNumber(text: string): number | null {
  let s = text.replace(/[\s\u00a0\u202f']/g, '');
  let sign = 1;
  if (/^[-−–]/.test(s)) {
    sign = -1;
    s = s.slice(1);
  } else if (s.startsWith('+')) s = s.slice(1);
  if (s.endsWith('-')) {
    sign = -1;
    s = s.slice(0, -1);
  }
  if (!/^[\d.,]+$/.test(s) || !/\d/.test(s)) return null;
  const lastDot = s.lastIndexOf('.');
  const lastComma = s.lastIndexOf(',');
  let normalized: string;
  if (lastDot >= 0 && lastComma >= 0) {
    const decimal = lastDot > lastComma ? '.' : ',';
    const group = decimal === '.' ? ',' : '.';
    const [intPart, frac, extra] = s.split(decimal);
    if (extra !== undefined || !groupedOk(intPart, group)) return null;
    normalized = `${intPart.split(group).join('')}.${frac}`;
  } else if (lastDot >= 0 || lastComma >= 0) {
    const sep = lastDot >= 0 ? '.' : ',';
    const parts = s.split(sep);
    if (parts.length > 2) {
      if (!groupedOk(s, sep)) return null;
      normalized = parts.join('');
    } else {
      const [intPart, frac] = parts;
      const thousands = frac.length === 3 && intPart.length > 0 && intPart.length <= 3 && intPart !== '0';
      normalized = thousands ? intPart + frac : `${intPart || '0'}.${frac}`;
    }
  } else normalized = s;
  if (normalized.endsWith('.')) normalized = normalized.slice(0, -1);
  const n = Number(normalized);
  return Number.isFinite(n) ? sign * n : null;
}

function groupedOk(intPart: string, group: string): boolean {
  const groups = intPart.split(group);
  if (groups.length === 1) return /^\d*$/.test(intPart);
  return /^\d{1,3}$/.test(groups[0]) && groups.slice(1).every((g) => /^\d{3}$/.test(g));
}

/** Parses a whole number; `1.234` is 1234, `12,5` is no whole number. */
export function parseInteger(text: string): number | null {
  const n = parseNumber(text);
  return n !== null && Number.isInteger(n) ? n : null;
}

/** Parses `84,37 €`, `EUR 84.37`, `$1,234.56`, `1.234,56 EUR`, `CHF 12.-`; currency null when none is named. */
export function parseMoney(
  text: string,
  fallbackCurrency: string | null = null,
  readNumber: (text: string) => number | null = parseNumber,
): MoneyValue | null {
  let s = text.trim();
  let currency: string | null = null;
  for (const [symbol, code] of Object.entries(SYMBOLS)) {
    if (s.includes(symbol)) {
      currency = code;
      s = s.replace(symbol, '');
      break;
    }
  }
  if (!currency) {
    const m = CODE.exec(s);
    if (m) {
      currency = m[1];
      s = s.replace(m[1], '');
    }
  }
  s = s.replace(/[.,]-$/, '');
  const amount = readNumber(s.trim());
  if (amount === null) return null;
  return { amount: Math.round(amount * 100) / 100, currency: currency ?? fallbackCurrency };
}

/** Canonical money text in templates: a plain decimal with a dot and two places. */
export function formatAmount(amount: number): string {
  return amount.toFixed(2);
}

/** Paperless's monetary wire form, e.g. `EUR1234.56`. */
export function formatMoneyWire(value: MoneyValue): string {
  return `${value.currency ?? ''}${formatAmount(value.amount)}`;
}

export function isMoneyValue(v: unknown): v is MoneyValue {
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    typeof (v as MoneyValue).amount === 'number' &&
    'currency' in v
  );
}

const TRUE_WORDS = new Set(['true', 'yes', 'y', 'ja', 'j', 'on', '1', 'x', 'wahr']);
const FALSE_WORDS = new Set(['false', 'no', 'n', 'nein', 'off', '0', 'falsch', '']);

/** yes/no, true/false, ja/nein, on/off, 1/0, x. */
export function parseBool(text: string): boolean | null {
  const s = text.trim().toLowerCase();
  if (TRUE_WORDS.has(s)) return true;
  if (FALSE_WORDS.has(s)) return false;
  return null;
}
