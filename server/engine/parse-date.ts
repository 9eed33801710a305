/**
 * Date parsing for extraction and comparisons: German and English forms, an explicit `format`
 * (dd.MM.yyyy, MM/dd/yyyy, d. MMMM yyyy…), and relative dates (-30d, +2w, -6m, -1y) against an
 * injected `now`. Dates are calendar dates and come out as ISO `yyyy-MM-dd`.
 */

const MONTHS: Record<string, number> = {};
const MONTH_NAMES: Array<[number, string[]]> = [
  [1, ['january', 'jan', 'januar', 'jänner', 'jän']],
  [2, ['february', 'feb', 'februar']],
  [3, ['march', 'mar', 'märz', 'maerz', 'mär', 'mrz']],
  [4, ['april', 'apr']],
  [5, ['may', 'mai']],
  [6, ['june', 'jun', 'juni']],
  [7, ['july', 'jul', 'juli']],
  [8, ['august', 'aug']],
  [9, ['september', 'sep', 'sept']],
  [10, ['october', 'oct', 'oktober', 'okt']],
  [11, ['november', 'nov']],
  [12, ['december', 'dec', 'dezember', 'dez']],
];
for (const [n, names] of MONTH_NAMES) for (const name of names) MONTHS[name] = n;
const MONTH_WORD = '([A-Za-zÄäÖöÜü]{3,10})\\.?';

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function fullYear(y: number, digits: number): number {
  return digits === 2 ? (y < 70 ? 2000 + y : 1900 + y) : y;
}

/** Builds an ISO date after checking the calendar (no 31.02.). */
export function isoDate(year: number, month: number, day: number): string | null {
  if (month < 1 || month > 12 || day < 1 || year < 1000 || year > 9999) return null;
  const d = new Date(Date.UTC(year, month - 1, day));
  if (d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return null;
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
}

function monthNumber(word: string): number | null {
  return MONTHS[word.toLowerCase()] ?? null;
}

/** Recognised without a format: yyyy-MM-dd, d.M.yyyy, d. MMMM yyyy, MMMM d, yyyy, d MMMM yyyy, unambiguous d/M/yyyy. */
export function parseDateAuto(text: string): string | null {
  const s = text.trim();
  let m = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.exec(s);
  if (m) return isoDate(+m[1], +m[2], +m[3]);
  m = /^(\d{1,2})\.\s?(\d{1,2})\.\s?(\d{4}|\d{2})$/.exec(s);
  if (m) return isoDate(fullYear(+m[3], m[3].length), +m[2], +m[1]);
  m = new RegExp(`^(\\d{1,2})\\.?\\s+${MONTH_WORD}\\s+(\\d{4})$`).exec(s);
  if (m) {
    const month = monthNumber(m[2]);
    return month ? isoDate(+m[3], month, +m[1]) : null;
  }
  m = new RegExp(`^${MONTH_WORD}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})$`).exec(s);
  if (m) {
    const month = monthNumber(m[1]);
    return month ? isoDate(+m[3], month, +m[2]) : null;
  }
  m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(s);
  if (m) {
    // Without a format only an unambiguous slash date is accepted: 03/04/2024 could be either.
    const a = +m[1];
    const b = +m[2];
    if (a > 12 && b <= 12) return isoDate(+m[3], b, a);
    if (b > 12 && a <= 12) return isoDate(+m[3], a, b);
    if (a === b) return isoDate(+m[3], a, b);
    return null;
  }
  return null;
}

const TOKENS: Array<[string, string]> = [
  ['yyyy', '(?<y>\\d{4})'],
  ['yy', '(?<yy>\\d{2})'],
  ['MMMM', `(?<mon>\\p{L}{3,12})`],
  ['MMM', `(?<mon>\\p{L}{3,5})\\.?`],
  ['MM', '(?<M>\\d{2})'],
  ['M', '(?<M>\\d{1,2})'],
  ['dd', '(?<d>\\d{2})'],
  ['d', '(?<d>\\d{1,2})'],
];

/** Checks a `format` such as dd.MM.yyyy; returns a message when it lacks a day, month or year. */
export function checkDateFormat(format: string): string | null {
  const probe = compileFormat(format);
  if (!probe)
    return `date format "${format}" needs a day (d or dd), a month (M, MM, MMM or MMMM) and a year (yy or yyyy)`;
  return null;
}

function compileFormat(format: string): RegExp | null {
  let out = '';
  const seen = new Set<string>();
  for (let i = 0; i < format.length;) {
    const tok = TOKENS.find(([t]) => format.startsWith(t, i));
    if (tok) {
      const group = /\?<(\w+)>/.exec(tok[1])?.[1] ?? '';
      if (seen.has(group)) return null;
      seen.add(group);
      out += tok[1];
      i += tok[0].length;
    } else {
      const c = format[i];
      out += c === ' ' ? '\\s+' : c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      i++;
    }
  }
  const hasYear = seen.has('y') || seen.has('yy');
  const hasMonth = seen.has('M') || seen.has('mon');
  if (!hasYear || !hasMonth || !seen.has('d')) return null;
  return new RegExp(`^${out}$`, 'iu');
}

/** Parses `text` with an explicit format; null when it does not fit. `month` reads a month name (a locale's, with `locale:`). */
export function parseDateWithFormat(
  text: string,
  format: string,
  month_: (word: string) => number | null = monthNumber,
): string | null {
  const re = compileFormat(format);
  const g = re?.exec(text.trim())?.groups;
  if (!g) return null;
  const year = g.y ? +g.y : fullYear(+g.yy, 2);
  const month = g.mon ? (month_(g.mon) ?? monthNumber(g.mon)) : +g.M;
  return month ? isoDate(year, month, +g.d) : null;
}

export function parseDate(text: string, format?: string): string | null {
  return format ? parseDateWithFormat(text, format) : parseDateAuto(text);
}

const RELATIVE = /^([+-])(\d{1,5})([dwmy])$/;

export function isRelativeDate(text: string): boolean {
  return RELATIVE.test(text.trim());
}

/** `-30d`, `+2w`, `-6m`, `-1y` from `now` (UTC calendar), as ISO yyyy-MM-dd; null when not relative. */
export function resolveRelativeDate(text: string, now: Date): string | null {
  const m = RELATIVE.exec(text.trim());
  if (!m) return null;
  const n = (m[1] === '-' ? -1 : 1) * Number(m[2]);
  return shiftDate(now, n, m[3] as DateUnit);
}

export type DateUnit = 'd' | 'w' | 'm' | 'y';

/**
 * The calendar day `n` units after `from` (before, when negative), as ISO `yyyy-MM-dd`. Months and years keep
 * the day of the month where it exists and otherwise end on the month's last day: 31 January + 1 month is 28 (or
 * 29) February, 29 February 2024 + 1 year is 28 February 2025.
 */
export function shiftDate(from: Date, n: number, unit: DateUnit): string {
  const d = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate()));
  if (unit === 'd') d.setUTCDate(d.getUTCDate() + n);
  else if (unit === 'w') d.setUTCDate(d.getUTCDate() + 7 * n);
  else {
    const months = unit === 'm' ? n : 12 * n;
    const day = d.getUTCDate();
    d.setUTCDate(1);
    d.setUTCMonth(d.getUTCMonth() + months);
    // Clamp to the month's end: 31 March minus one month is 29 February, not 2 March.
    const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
    d.setUTCDate(Math.min(day, last));
  }
  return d.toISOString().slice(0, 10);
}
