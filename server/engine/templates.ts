/**
 * The one configured Liquid instance for rule and vars templates. Undefined variables and unknown
 * filters are errors (never an empty string), only own properties are reachable, and parse and render
 * work is bounded so a template cannot exhaust the server.
 */
import { analyzeSync, Context, Liquid, type FS, type Template } from 'liquidjs';
import { formatAmount, isMoneyValue, parseMoney, parseNumber } from './parse-number.js';
import { parseDate, parseDateWithFormat, resolveRelativeDate } from './parse-date.js';
import { checkLocale, localeMonth, parseLocaleDate, parseLocaleNumber } from './locale-parse.js';
import { TemplateError, type RulePath } from './rule-errors.js';
import { LANGUAGE_FILTERS, registerLanguageFilters } from './language-filters.js';
import { DATE_FILTERS, registerDateFilters } from './date-filters.js';
import { MoneyDrop } from './money-drop.js';
import { errorMessage } from '../error-message.js';

/**
 * Work budget per render, counted in template steps (each block rendered, each loop iteration): a runaway
 * loop is stopped by this count, the same on every machine. The wall-clock limit below stays only as a
 * backstop for a single step that is slow in itself; no loop reaches it before the step count.
 */
export const MAX_TEMPLATE_STEPS = 100_000;
/** Wall-clock backstop per render: the one place the engine measures time. */
const RENDER_LIMIT_MS = 30_000;
/** Rendered text of one template, in characters (a title, a note, a var); more fails the template. */
export const MAX_RENDERED_CHARS = 100_000;

// Templates never read files: Liquid's include/render/layout would otherwise load any file the service
// can read (the session secret, config.yml) into a title or the vars preview.
const NO_FILES: FS = {
  exists: () => Promise.resolve(false),
  existsSync: () => false,
  readFile: () => Promise.reject(new Error('templates cannot read files')),
  readFileSync: () => {
    throw new Error('templates cannot read files');
  },
  resolve: (_dir, file) => file,
};

const liquid = new Liquid({
  fs: NO_FILES,
  relativeReference: false,
  root: [],
  partials: [],
  layouts: [],
  strictVariables: true,
  strictFilters: true,
  // Lets `{{ x | default: 'y' }}` and `{% if x %}` test a value that may be missing; plain `{{ x }}` still fails.
  lenientIf: true,
  ownPropertyOnly: true,
  // Dates are calendar dates in UTC so results do not depend on the machine's time zone.
  timezoneOffset: 0,
  renderLimit: RENDER_LIMIT_MS,
  memoryLimit: 10_000_000,
  parseLimit: 100_000,
  cache: false,
});

for (const tag of ['include', 'render', 'layout']) {
  liquid.registerTag(tag, {
    parse() {
      throw new Error(`{% ${tag} %} is not available in rule templates: they cannot read files`);
    },
    render() {
      return '';
    },
  });
}

type FilterThis = { context: { getSync(path: PropertyKey[]): unknown } };

function contextNow(self: FilterThis): Date {
  const now = self.context.getSync(['now']);
  const d = typeof now === 'string' ? new Date(now) : null;
  if (!d || Number.isNaN(d.getTime())) throw new Error('no "now" in the template context');
  return d;
}

/** Turns what a template holds into a Date: ISO dates, German/English dates, `now`/`today`, relative -30d. */
function toDate(self: FilterThis, v: unknown): Date {
  if (v instanceof Date) return v;
  const s = String(v ?? '').trim();
  if (s === 'now' || s === 'today') return contextNow(self);
  const relative = resolveRelativeDate(s, contextNow(self));
  if (relative) return new Date(`${relative}T00:00:00Z`);
  if (/^\d{4}-\d{2}-\d{2}T/.test(s)) {
    const d = new Date(s);
    if (!Number.isNaN(d.getTime())) return d;
  }
  const iso = parseDate(s);
  if (!iso)
    throw new Error(
      `date: "${s.slice(0, 60)}" is not a date (use yyyy-MM-dd, dd.MM.yyyy, "3. März 2024" or "March 3, 2024")`,
    );
  return new Date(`${iso}T00:00:00Z`);
}

function builtin(name: string) {
  const impl = liquid.filters[name];
  return typeof impl === 'function' ? impl : impl.handler;
}

const builtinDate = builtin('date');
liquid.registerFilter('date', function (this: FilterThis, v: unknown, format?: unknown, ...rest: unknown[]): unknown {
  const format_ = typeof format === 'string' ? format : '%Y-%m-%d';
  return builtinDate.call(this as unknown as ThisParameterType<typeof builtinDate>, toDate(this, v), format_, ...rest);
});

registerLanguageFilters(
  liquid,
  (self, v, format) => builtinDate.call(self as ThisParameterType<typeof builtinDate>, v, format) as string,
  (self, v) => toDate(self as FilterThis, v),
);

// The other date filters get the same input handling, so `now` is the injected clock, never the machine's.
for (const name of ['date_to_xmlschema', 'date_to_rfc822', 'date_to_string', 'date_to_long_string']) {
  const impl = builtin(name);
  liquid.registerFilter(name, function (this: FilterThis, v: unknown, ...rest: unknown[]): unknown {
    return impl.call(this as unknown as ThisParameterType<typeof impl>, toDate(this, v), ...rest);
  });
}

/** `{{ total | money }}` → 1234.56; `| money: 'de'` → 1.234,56; `| money: 'en', 'EUR'` → €1,234.56. */
liquid.registerFilter('money', (v: unknown, locale?: unknown, currency?: unknown) => {
  const money = isMoneyValue(v)
    ? v
    : typeof v === 'number'
      ? { amount: v, currency: null }
      : parseMoney(String(v ?? ''));
  if (!money) throw new Error(`money: "${String(v).slice(0, 60)}" is not an amount`);
  if (typeof locale !== 'string') return formatAmount(money.amount);
  // A typed money value shows its currency only when asked (`money: 'de', 'EUR'`), as when it rendered as a plain decimal.
  const code = typeof currency === 'string' ? currency : v instanceof MoneyDrop ? null : money.currency;
  const opts: Intl.NumberFormatOptions = code
    ? { style: 'currency', currency: code }
    : { minimumFractionDigits: 2, maximumFractionDigits: 2 };
  return new Intl.NumberFormat(locale, opts).format(money.amount);
});

/** `{{ '1.234,56' | parse_number }}` → 1234.56 (German or English form); `| parse_number: 'fr'` reads `1 234,56`. */
liquid.registerFilter('parse_number', (v: unknown, locale?: unknown) => {
  const text = String(v ?? '');
  const n =
    typeof v === 'number'
      ? v
      : typeof locale === 'string'
        ? parseLocaleNumber(text, checkedLocale(locale))
        : parseNumber(text);
  if (n === null) throw new Error(`parse_number: "${String(v).slice(0, 60)}" is not a number`);
  return n;
});

/** `{{ '03/04/2024' | parse_date: 'MM/dd/yyyy' }}` → 2024-03-04; `| parse_date: '', 'fr'` reads "3 mars 2024". */
liquid.registerFilter('parse_date', (v: unknown, format?: unknown, locale?: unknown) => {
  const text = String(v ?? '');
  const f = typeof format === 'string' && format !== '' ? format : undefined;
  const l = typeof locale === 'string' ? checkedLocale(locale) : null;
  const iso = l
    ? f
      ? parseDateWithFormat(text, f, (w) => localeMonth(w, l))
      : parseLocaleDate(text, l)
    : parseDate(text, f);
  if (!iso)
    throw new Error(
      `parse_date: "${String(v).slice(0, 60)}" is not a date${typeof format === 'string' ? ` in format ${format}` : ''}`,
    );
  return iso;
});

registerDateFilters(liquid, (self, v) => toDate(self as FilterThis, v));

function checkedLocale(locale: string): string {
  const problem = checkLocale(locale);
  if (problem) throw new Error(problem);
  return locale;
}

// `sample` picks at random: a rule must give the same result twice (idempotency), so it is not offered.
delete (liquid.filters as Record<string, unknown>).sample;

/** Every filter name available in templates, built-in and ours, for editor completion and the docs. */
export const TEMPLATE_FILTERS: string[] = Object.keys(liquid.filters).sort();

/** Our own filters (documented in detail in docs/rules.md). */
export const CUSTOM_TEMPLATE_FILTERS = [
  'date',
  'money',
  'parse_number',
  'parse_date',
  ...DATE_FILTERS,
  ...LANGUAGE_FILTERS,
] as const;

export interface CompiledTemplate {
  source: string;
  /** True when the text has no Liquid markup and renders as itself. */
  literal: boolean;
  templates: Template[];
  /** `doc.custom_fields.<name>.amount|currency` reads: checked at render, since only a monetary field has them. */
  moneyReads: Array<{ field: string; member: string }>;
  /** The free names it reads (`total`, `doc`), so an action can tell it needs a value that was not found. */
  globals: string[];
}

export function isTemplateText(text: string): boolean {
  return text.includes('{{') || text.includes('{%');
}

/** Parses a template or throws TemplateError at `path`. */
export function compileTemplate(source: string, path: RulePath): CompiledTemplate {
  if (!isTemplateText(source)) return { source, literal: true, templates: [], moneyReads: [], globals: [] };
  let templates: Template[];
  try {
    templates = liquid.parse(source);
  } catch (err) {
    throw new TemplateError(path, `template "${shorten(source)}" does not parse: ${cleanLiquidMessage(err)}`);
  }
  const globals = analyzeSync(templates).globals;
  return { source, literal: false, templates, moneyReads: moneyReadsOf(globals), globals: Object.keys(globals) };
}

function moneyReadsOf(globals: ReturnType<typeof analyzeSync>['globals']): CompiledTemplate['moneyReads'] {
  const reads = (globals.doc ?? []).map((u) => u.segments);
  return reads
    .filter((s) => s[1] === 'custom_fields' && typeof s[2] === 'string' && (s[3] === 'amount' || s[3] === 'currency'))
    .map((s) => ({ field: s[2] as string, member: s[3] as string }));
}

/** `.amount` of a text field would be undefined, which `{% if %}` reads as a quiet false: say it instead. */
function checkMoneyReads(t: CompiledTemplate, scope: Record<string, unknown>, path: RulePath): void {
  const doc = scope.doc as { custom_fields?: Record<string, unknown> } | undefined;
  for (const { field, member } of t.moneyReads) {
    const custom = doc?.custom_fields;
    const v = custom && Object.prototype.hasOwnProperty.call(custom, field) ? custom[field] : undefined;
    if (v === undefined || v === null || v instanceof MoneyDrop) continue;
    throw new TemplateError(
      path,
      `template "${shorten(t.source)}" reads doc.custom_fields.${field}.${member}, but ${field} holds ${JSON.stringify(v)}, which is not money (only a monetary field has amount and currency; in a rule test write it as Paperless does, e.g. EUR1500.00)`,
    );
  }
}

/** Renders synchronously (the engine is pure and has nothing to await); errors become TemplateError. */
export function renderTemplate(t: CompiledTemplate, scope: Record<string, unknown>, path: RulePath): string {
  if (t.literal) return t.source;
  checkMoneyReads(t, scope, path);
  try {
    const text = liquid.renderSync(t.templates, boundedContext(scope)) as string;
    // liquidjs's memoryLimit does not see `{% capture %}`, so a doubling capture could build megabytes.
    if (text.length > MAX_RENDERED_CHARS) {
      throw new TemplateError(
        path,
        `template "${shorten(t.source)}" rendered ${text.length} characters, more than the limit of ${MAX_RENDERED_CHARS}`,
      );
    }
    return text;
  } catch (err) {
    if (err instanceof TemplateError) throw err;
    const message = cleanLiquidMessage(err);
    if (message.includes(STEP_LIMIT_MESSAGE)) {
      throw new TemplateError(
        path,
        `template "${shorten(t.source)}" ran more than ${MAX_TEMPLATE_STEPS.toLocaleString('en')} steps and was stopped; simplify its loops`,
        true,
      );
    }
    if (message.includes('template render limit exceeded')) {
      throw new TemplateError(
        path,
        `template "${shorten(t.source)}" took longer than ${RENDER_LIMIT_MS} ms and was stopped; simplify its loops`,
        true,
      );
    }
    const undefinedName = /^undefined variable: ([^,.[\s]+)/.exec(errorMessage(err))?.[1] ?? null;
    throw new TemplateError(path, `template "${shorten(t.source)}" failed: ${message}`, false, undefinedName);
  }
}

const STEP_LIMIT_MESSAGE = 'template step limit exceeded';

/**
 * A render context whose render limiter counts steps as well as time: liquidjs checks its render limit
 * once per rendered block and loop iteration, so counting those checks bounds a loop deterministically
 * (which of two limits trips first must not depend on how fast the machine is).
 */
function boundedContext(scope: Record<string, unknown>): Context {
  const deadline = performance.now() + RENDER_LIMIT_MS;
  let steps = 0;
  const renderLimit = {
    check(at: number) {
      if (++steps > MAX_TEMPLATE_STEPS) throw new Error(STEP_LIMIT_MESSAGE);
      if (at > deadline) throw new Error('template render limit exceeded');
    },
    use() {},
  };
  return new Context(
    scope,
    liquid.options,
    { sync: true },
    { renderLimit: renderLimit as unknown as Context['renderLimit'] },
  );
}

function shorten(s: string): string {
  return s.length > 80 ? `${s.slice(0, 77)}…` : s;
}

function cleanLiquidMessage(err: unknown): string {
  const msg = errorMessage(err);
  return msg.replace(
    /^undefined variable: (\S+?),/,
    'undefined variable "$1" (extracted values, doc, vars, now, today and rule are available),',
  );
}
