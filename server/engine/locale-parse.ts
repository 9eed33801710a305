/**
 * `locale:` on an extraction: dates and numbers in a document's own language. Month and weekday names,
 * the day/month order and the number separators come from `Intl` (as `localize_date` formats them), so
 * French, Spanish, Italian, Dutch… need no chain of `replace` filters. Pure and cached per locale.
 */
import { isoDate } from './parse-date.js';

interface LocaleInfo {
  /** Folded month name (long, short, standalone and in-date forms) → 1..12. */
  months: Map<string, number>;
  weekdays: Set<string>;
  /** `03/02/2024` is 3 February (true) or March 2 (false). */
  dayFirst: boolean;
  group: string;
  decimal: string;
}

const cache = new Map<string, LocaleInfo>();
/** Little words between day, month and year: "3 de febrero de 2024", "le 1er mars", "the 3rd of May". */
const FILLERS = new Set(['de', 'del', 'le', 'la', 'el', 'il', 'der', 'den', 'am', 'the', 'of', 'op', 'en']);

/** Lower case without accents or a trailing dot, so "Février", "fevrier" and "févr." meet. */
function fold(word: string): string {
  return word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/\.$/, '');
}

/** A message when `tag` is not a locale Intl knows, else null. */
export function checkLocale(tag: string): string | null {
  try {
    if (
      Intl.DateTimeFormat.supportedLocalesOf([tag]).length > 0 &&
      Intl.NumberFormat.supportedLocalesOf([tag]).length > 0
    )
      return null;
  } catch {
    // An ill-formed tag throws; it gets the same message as an unknown one.
  }
  return `locale "${tag}" is not a language this server knows; use a tag such as fr, es, it, nl, de-AT or en-US`;
}

function localeInfo(locale: string): LocaleInfo {
  const known = cache.get(locale);
  if (known) return known;
  const months = new Map<string, number>();
  const weekdays = new Set<string>();
  for (let m = 0; m < 12; m++) {
    const date = new Date(Date.UTC(2024, m, 15));
    for (const width of ['long', 'short'] as const) {
      months.set(fold(new Intl.DateTimeFormat(locale, { month: width, timeZone: 'UTC' }).format(date)), m + 1);
      // Inside a date some languages use another form of the name (Polish "lutego" beside "luty").
      const part = new Intl.DateTimeFormat(locale, { day: 'numeric', month: width, timeZone: 'UTC' })
        .formatToParts(date)
        .find((p) => p.type === 'month');
      if (part) months.set(fold(part.value), m + 1);
    }
  }
  for (let d = 0; d < 7; d++) {
    const date = new Date(Date.UTC(2024, 0, 1 + d));
    for (const width of ['long', 'short'] as const)
      weekdays.add(fold(new Intl.DateTimeFormat(locale, { weekday: width, timeZone: 'UTC' }).format(date)));
  }
  const order = new Intl.DateTimeFormat(locale, { timeZone: 'UTC' })
    .formatToParts(new Date(Date.UTC(2024, 1, 3)))
    .map((p) => p.type);
  const numberParts = new Intl.NumberFormat(locale).formatToParts(1234567.5);
  const info: LocaleInfo = {
    months,
    weekdays,
    dayFirst: order.indexOf('day') < order.indexOf('month'),
    group: numberParts.find((p) => p.type === 'group')?.value ?? ',',
    decimal: numberParts.find((p) => p.type === 'decimal')?.value ?? '.',
  };
  cache.set(locale, info);
  return info;
}

/** The month number of a name in this locale ("février", "feb.", "lutego"), or null. */
export function localeMonth(word: string, locale: string): number | null {
  return localeInfo(locale).months.get(fold(word)) ?? null;
}

/**
 * A date in the locale's words or numeric order: "3 février 2024", "le 1er mars 2024", "3 de febrero de 2024",
 * "lundi 3 mars 2024", "03/02/2024" (day first in fr, month first in en-US). ISO dates are always read.
 */
export function parseLocaleDate(text: string, locale: string): string | null {
  const info = localeInfo(locale);
  const s = text.trim();
  let m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(s);
  if (m) return isoDate(+m[1], +m[2], +m[3]);
  m = /^(\d{1,2})[./-](\d{1,2})[./-](\d{4}|\d{2})$/.exec(s);
  if (m) {
    const year = m[3].length === 2 ? 2000 + +m[3] - (+m[3] >= 70 ? 100 : 0) : +m[3];
    return info.dayFirst ? isoDate(year, +m[2], +m[1]) : isoDate(year, +m[1], +m[2]);
  }
  let day: number | null = null;
  let month: number | null = null;
  let year: number | null = null;
  for (const raw of s.split(/[\s,]+/)) {
    const word = fold(raw);
    if (word === '' || FILLERS.has(word) || info.weekdays.has(word)) continue;
    const number = /^(\d{1,4})(?:er|re|st|nd|rd|th|º|°|\.)?$/.exec(word);
    if (number && number[1].length === 4 && year === null) year = +number[1];
    else if (number && number[1].length <= 2 && day === null) day = +number[1];
    else if (!number && month === null && info.months.has(word)) month = info.months.get(word) ?? null;
    else return null;
  }
  return day !== null && month !== null && year !== null ? isoDate(year, month, day) : null;
}

/** A number written as the locale writes it: `1 234,56` (fr), `1.234,56` (es), `1,234.56` (en), `1'234.56` (de-CH). */
export function parseLocaleNumber(text: string, locale: string): number | null {
  const { group, decimal } = localeInfo(locale);
  let s = text.replace(/[\s\u00a0\u202f]/g, '');
  let sign = 1;
  if (/^[-−–]/.test(s) || s.endsWith('-')) {
    sign = -1;
    s = s.replace(/^[-−–]|-$/g, '');
  } else if (s.startsWith('+')) s = s.slice(1);
  const [intPart, frac, extra] = s.split(decimal);
  if (extra !== undefined || (frac !== undefined && !/^\d+$/.test(frac))) return null;
  const groups = /^\s$/.test(group) ? [intPart] : intPart.split(group);
  if (
    !groups.every((g, i) => (i === 0 ? /^\d+$/.test(g) && (groups.length === 1 || g.length <= 3) : /^\d{3}$/.test(g)))
  )
    return null;
  const n = Number(`${groups.join('')}${frac !== undefined ? `.${frac}` : ''}`);
  return Number.isFinite(n) ? sign * n : null;
}
