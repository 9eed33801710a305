/**
 * Date arithmetic in templates with amounts computed from the document: `{{ issued | add_days: term }}`,
 * `{{ bought | add_years: warranty }}`, `{{ start | shift_date: months, 'months' }}` beside the literal
 * `shift_date: '+30d'`. Results are ISO calendar dates; months and years end on the month's last day when the
 * day does not exist there (31 January + 1 month is the last day of February).
 */
import type { Liquid } from 'liquidjs';
import { resolveRelativeDate, shiftDate, type DateUnit } from './parse-date.js';
import { isMoneyValue } from './parse-number.js';

export const DATE_FILTERS = ['shift_date', 'add_days', 'add_weeks', 'add_months', 'add_years'] as const;

/** Unit words `shift_date` takes after an amount, English and German, singular and plural. */
const UNITS: Record<string, DateUnit> = {};
const UNIT_WORDS: Array<[DateUnit, string[]]> = [
  ['d', ['d', 'day', 'days', 'tag', 'tage', 'tagen']],
  ['w', ['w', 'week', 'weeks', 'woche', 'wochen']],
  ['m', ['m', 'month', 'months', 'monat', 'monate', 'monaten']],
  ['y', ['y', 'year', 'years', 'jahr', 'jahre', 'jahren']],
];
for (const [unit, words] of UNIT_WORDS) for (const w of words) UNITS[w] = unit;

/** No real deadline is further away than this many units; more is a mistake in the amount (an ASN, a total). */
const MAX_AMOUNT = 100_000;

/** A whole number from what a template holds: 14, "14", "+14", "-3", " 24 ". */
function amountOf(filter: string, v: unknown): number {
  if (v === undefined || v === null)
    throw new Error(
      `${filter} needs an amount: ${filter === 'shift_date' ? "shift_date: 14, 'days'" : `${filter}: 14`}`,
    );
  const n =
    typeof v === 'number' ? v : typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v) ? Number(v.trim()) : Number.NaN;
  if (!Number.isInteger(n))
    throw new Error(
      `${filter}: the amount ${describe(v)} is not a whole number; extract it with type: int (or write e.g. 14)`,
    );
  if (Math.abs(n) > MAX_AMOUNT) throw new Error(`${filter}: the amount ${n} is too large (at most ${MAX_AMOUNT})`);
  return n;
}

function describe(v: unknown): string {
  if (isMoneyValue(v)) return `${v.amount} (money)`;
  return JSON.stringify(typeof v === 'string' && v.length > 40 ? `${v.slice(0, 40)}…` : v);
}

/** `iso` when it is a date of the years 1000 to 9999; else an error (`toISOString` writes others as +10000-…). */
function inRange(filter: string, iso: string): string {
  if (!/^\d{4}-/.test(iso)) throw new Error(`${filter}: the result lies outside the years 1000 to 9999`);
  return iso;
}

function shifted(filter: string, base: Date, n: number, unit: DateUnit): string {
  return inRange(filter, shiftDate(base, n, unit));
}

/** Registers the date arithmetic filters; `toDate` reads any date form the `date` filter takes. */
export function registerDateFilters(liquid: Liquid, toDate: (self: unknown, v: unknown) => Date): void {
  /** `| shift_date: '+30d'` (d, w, m, y), or an amount and a unit: `| shift_date: term, 'days'`. */
  liquid.registerFilter('shift_date', function (this: unknown, v: unknown, offset?: unknown, unit?: unknown) {
    const base = toDate(this, v);
    if (unit !== undefined) {
      const u = UNITS[String(unit).trim().toLowerCase()];
      if (!u)
        throw new Error(
          `shift_date: unit ${describe(unit)} is none of days, weeks, months, years (d, w, m, y; Tage, Wochen, Monate, Jahre)`,
        );
      return shifted('shift_date', base, amountOf('shift_date', offset), u);
    }
    const relative = resolveRelativeDate(String(offset ?? ''), base);
    if (!relative)
      throw new Error(
        `shift_date: "${String(offset)}" is no offset such as +30d, -2w, +1m or -1y; for a computed amount give it and a unit: shift_date: term, 'days'`,
      );
    return inRange('shift_date', relative);
  });
  const units: Array<[string, DateUnit]> = [
    ['add_days', 'd'],
    ['add_weeks', 'w'],
    ['add_months', 'm'],
    ['add_years', 'y'],
  ];
  for (const [name, unit] of units) {
    /** `{{ issued | add_days: term }}`: a negative amount goes back. */
    liquid.registerFilter(name, function (this: unknown, v: unknown, amount?: unknown) {
      return shifted(name, toDate(this, v), amountOf(name, amount), unit);
    });
  }
}
