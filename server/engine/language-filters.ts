/**
 * Template filters for text and dates people write in titles: `regex_replace` (RE2, the same limits
 * as rule regexes), `title_case`, and `localize_date` (month and day names in a chosen language from
 * `Intl`, never hand-made tables).
 */
import type { Liquid } from 'liquidjs';
import { RE2JS } from 're2js';
import { compileRegex } from './regex.js';
import { errorMessage } from '../error-message.js';

/** Formats a template value (any date form the `date` filter accepts) with a strftime format. */
export type Strftime = (self: unknown, value: unknown, format: string) => string;

export const LANGUAGE_FILTERS = ['regex_replace', 'title_case', 'localize_date'] as const;

const DATE_STYLES = new Set(['short', 'medium', 'long', 'full']);
const MAX_CACHED_PATTERNS = 200;
const patterns = new Map<string, RE2JS>();

function re2(pattern: string): RE2JS {
  let re = patterns.get(pattern);
  if (!re) {
    // compileRegex applies the rule-regex checks (RE2 syntax, unsupported constructs, length) and throws a readable error.
    compileRegex(pattern);
    re = RE2JS.compile(pattern);
    if (patterns.size >= MAX_CACHED_PATTERNS) patterns.clear();
    patterns.set(pattern, re);
  }
  return re;
}

function language(locale: unknown): string {
  const tag = typeof locale === 'string' ? locale.replace('_', '-') : '';
  let supported: string[];
  try {
    supported = tag ? Intl.DateTimeFormat.supportedLocalesOf(tag) : [];
  } catch {
    supported = [];
  }
  if (supported.length === 0)
    throw new Error(
      `localize_date: ${JSON.stringify(locale)} is no language this service knows; give one such as 'de', 'en', 'fr' or 'de-AT'`,
    );
  return supported[0];
}

/** `Montag, 3. März 2025`: the strftime name tokens come from Intl in the language; the rest as in `date`. */
function localize(date: Date, format: string, locale: string): string {
  const name = (options: Intl.DateTimeFormatOptions) =>
    new Intl.DateTimeFormat(locale, { ...options, timeZone: 'UTC' }).format(date);
  // With a day, the month takes the form used in a date (Polish "marca", not the nominative "marzec").
  const monthInDate = () =>
    new Intl.DateTimeFormat(locale, { month: 'long', day: 'numeric', timeZone: 'UTC' })
      .formatToParts(date)
      .find((p) => p.type === 'month')?.value ?? name({ month: 'long' });
  const names: Record<string, () => string> = {
    B: monthInDate,
    b: () => name({ month: 'short' }),
    A: () => name({ weekday: 'long' }),
    a: () => name({ weekday: 'short' }),
  };
  // Names are quoted for strftime by doubling any %, so a name can never become a token.
  return format.replace(/%([BbAa%])/g, (m, token: string) =>
    token === '%' ? '%%' : names[token]().replace(/%/g, '%%'),
  );
}

export function registerLanguageFilters(
  liquid: Liquid,
  strftime: Strftime,
  toDate: (self: unknown, v: unknown) => Date,
): void {
  /** `{{ text | regex_replace: '(\d+)/(\d+)', '$2-$1' }}`: every match replaced; `$1` … for groups. */
  liquid.registerFilter('regex_replace', (v: unknown, pattern?: unknown, replacement?: unknown) => {
    if (typeof pattern !== 'string') throw new Error("regex_replace needs a pattern: regex_replace: '\\s+', ' '");
    try {
      return re2(pattern)
        .matcher(String(v ?? ''))
        .replaceAll(typeof replacement === 'string' ? replacement : String(replacement ?? ''));
    } catch (err) {
      throw new Error(`regex_replace: ${errorMessage(err)}`, { cause: err });
    }
  });

  /** `{{ 'STADTWERKE MÜNCHEN gmbh' | title_case }}` → `Stadtwerke München Gmbh`. */
  liquid.registerFilter('title_case', (v: unknown) =>
    String(v ?? '')
      .toLocaleLowerCase()
      .replace(
        /(^|[^\p{L}\p{N}'’])(\p{L})/gu,
        (_m, before: string, letter: string) => before + letter.toLocaleUpperCase(),
      ),
  );

  /** `{{ issued | localize_date: '%d. %B %Y', 'de' }}` → `3. März 2025`; a style (`long`) instead of a format. */
  liquid.registerFilter('localize_date', function (this: unknown, v: unknown, format?: unknown, locale?: unknown) {
    const lang = language(locale);
    const f = typeof format === 'string' ? format : 'medium';
    const date = toDate(this, v);
    if (DATE_STYLES.has(f))
      return new Intl.DateTimeFormat(lang, {
        dateStyle: f as Intl.DateTimeFormatOptions['dateStyle'],
        timeZone: 'UTC',
      }).format(date);
    return strftime(this, date, localize(date, f, lang));
  });
}
