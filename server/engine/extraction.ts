/**
 * Extraction: named values read from the document by regex (several patterns, pick first/last/all)
 * or computed by a template, then parsed to a type (locale-aware numbers, money and dates).
 */
import type {
  Extraction,
  ExtractionGroup,
  ExtractionPick,
  ExtractionType,
  MoneyValue,
  RuleDocument,
  Scalar,
} from './model.js';
import { RuleCompileError, TemplateError, type RulePath } from './rule-errors.js';
import { fieldKind, readField } from './fields.js';
import { compileRegex, MAX_MATCHES, RegexSyntaxError, type RuleRegex } from './regex.js';
import { compileTemplate, renderTemplate, type CompiledTemplate } from './templates.js';
import { checkTemplateVariables, type KnownValues } from './template-variables.js';
import { parseBool, parseInteger, parseMoney, parseNumber } from './parse-number.js';
import { checkDateFormat, parseDate, parseDateWithFormat } from './parse-date.js';
import { checkLocale, localeMonth, parseLocaleDate, parseLocaleNumber } from './locale-parse.js';
import { asText } from './condition-ops.js';
import { describeValue } from './describe.js';
import { type CompiledQuery } from './document-queries.js';
import { compileQuery, queryValueType } from './compile-query.js';

export type TypedValue = string | number | boolean | MoneyValue | null;
export type ExtractedValue = TypedValue | TypedValue[];

/** How one value is typed: the extraction's own, or one of its `groups`. */
export interface ValueSpec {
  type: ExtractionType;
  format?: string;
  currency: string | null;
  locale: string | null;
  default: TypedValue | undefined;
  required: boolean;
}

export interface CompiledExtraction extends ValueSpec {
  name: string;
  path: RulePath;
  from: string;
  regexes: RuleRegex[];
  template: CompiledTemplate | null;
  pick: ExtractionPick;
  /** `groups:` — each named group is a value of its own (the extraction's name is then only its label). */
  groups: Array<ValueSpec & { name: string }>;
  /** `query:` — a question about other documents instead of a regex or template. */
  query: CompiledQuery | null;
}

export const RESERVED_NAMES = ['doc', 'vars', 'now', 'today', 'rule', 'env'];

/** Parses raw text to the extraction's type; null when it does not fit. With a `locale`, numbers and dates are read as that language writes them. */
export function parseTyped(
  raw: string,
  type: ExtractionType,
  format: string | undefined,
  currency: string | null,
  locale: string | null = null,
): TypedValue {
  const text = raw.trim();
  const number = (t: string) => (locale ? parseLocaleNumber(t, locale) : parseNumber(t));
  switch (type) {
    case 'string':
      return text === '' ? null : text;
    case 'int': {
      const n = locale ? number(text) : parseInteger(text);
      return n !== null && Number.isInteger(n) ? n : null;
    }
    case 'number':
      return number(text);
    case 'money':
      return parseMoney(text, currency, number);
    case 'date':
      if (!locale) return parseDate(text, format);
      return format
        ? parseDateWithFormat(text, format, (w) => localeMonth(w, locale))
        : (parseLocaleDate(text, locale) ?? parseDate(text));
    case 'bool':
      return parseBool(text);
  }
}

function typedDefault(v: Scalar, type: ExtractionType, currency: string | null, path: RulePath): TypedValue {
  if (v === null) return null;
  if (type === 'money' && typeof v === 'number') return { amount: v, currency };
  if ((type === 'number' || type === 'int') && typeof v === 'number') return v;
  if (type === 'bool' && typeof v === 'boolean') return v;
  // A default is written in the rule, not the document: read it without the document's format or locale.
  const parsed = parseTyped(String(v), type, undefined, currency);
  if (parsed === null) throw new RuleCompileError(path, `default ${JSON.stringify(v)} is not a valid ${type}`);
  return parsed;
}

/** Type, format, currency, locale, default and required of one value, checked against each other. */
function compileValueSpec(e: ExtractionGroup, path: RulePath, inheritedLocale: string | null): ValueSpec {
  const type = e.type ?? 'string';
  if (e.format !== undefined) {
    if (type !== 'date') throw new RuleCompileError([...path, 'format'], 'format applies only to type: date');
    const problem = checkDateFormat(e.format);
    if (problem) throw new RuleCompileError([...path, 'format'], problem);
  }
  if (e.currency !== undefined && type !== 'money')
    throw new RuleCompileError([...path, 'currency'], 'currency applies only to type: money');
  if (e.locale !== undefined) {
    const problem = checkLocale(e.locale);
    if (problem) throw new RuleCompileError([...path, 'locale'], problem);
  }
  const currency = e.currency ?? null;
  return {
    type,
    format: e.format,
    currency,
    locale: e.locale ?? inheritedLocale,
    default: e.default === undefined ? undefined : typedDefault(e.default, type, currency, [...path, 'default']),
    required: e.required === true,
  };
}

/** `groups:` — the group names become values; each must be a named group of every pattern, and a new name. */
function compileGroups(
  e: Extraction,
  path: RulePath,
  regexes: RuleRegex[],
  earlier: KnownValues,
): CompiledExtraction['groups'] {
  if (e.groups === undefined) return [];
  const at = [...path, 'groups'];
  if (regexes.length === 0)
    throw new RuleCompileError(at, 'groups reads the named groups of a regex; give regex, not value');
  const entries = Object.entries(e.groups);
  if (entries.length === 0)
    throw new RuleCompileError(at, 'groups names at least one named group, e.g. { order: { type: string } }');
  for (const key of ['type', 'format', 'currency', 'default'] as const) {
    if (e[key] !== undefined)
      throw new RuleCompileError(
        [...path, key],
        `with groups, give ${key} to each group (groups: { name: { ${key}: … } })`,
      );
  }
  return entries.map(([name, spec]) => {
    const here = [...at, name];
    if (RESERVED_NAMES.includes(name))
      throw new RuleCompileError(here, `"${name}" is reserved in templates; name the group otherwise`);
    if (earlier.has(name))
      throw new RuleCompileError(here, `"${name}" is already extracted above; each value needs its own name`);
    const missing = regexes.find((r) => !r.groupNames.includes(name));
    if (missing) throw new RuleCompileError(here, `the pattern /${missing.source}/ has no named group (?<${name}>…)`);
    return { name, ...compileValueSpec(spec ?? {}, here, e.locale ?? null) };
  });
}

/** `earlier` are the names extracted before this one: a `value` template may use them. */
export function compileExtraction(
  name: string,
  e: Extraction,
  path: RulePath,
  earlier: KnownValues = new Map(),
): CompiledExtraction {
  if (RESERVED_NAMES.includes(name))
    throw new RuleCompileError(path, `"${name}" is reserved in templates; choose another name for this value`);
  if (earlier.has(name))
    throw new RuleCompileError(
      path,
      `"${name}" is already extracted above (as a group); each value needs its own name`,
    );
  if (e.query !== undefined) return compileQueryExtraction(name, e, path, earlier);
  if (e.field !== undefined || e.where !== undefined)
    throw new RuleCompileError(path, 'field and where belong to a query (query: count, ids, first, last, max or min)');
  const from = e.from ?? 'content';
  if (!fieldKind(from))
    throw new RuleCompileError(
      [...path, 'from'],
      `cannot read from "${from}"; use content, title, original_file_name, notes, a document field or custom_fields.<name>`,
    );
  if (e.regex !== undefined && e.value !== undefined)
    throw new RuleCompileError(path, 'give either regex (read from the document) or value (a template), not both');
  if (e.regex === undefined && e.value === undefined)
    throw new RuleCompileError(path, 'give regex (read from the document) or value (a template)');
  const spec = compileValueSpec(e, path, null);
  const regexes: RuleRegex[] = [];
  if (e.regex !== undefined) {
    const list = Array.isArray(e.regex) ? e.regex : [e.regex];
    list.forEach((p, i) => {
      const at = Array.isArray(e.regex) ? [...path, 'regex', i] : [...path, 'regex'];
      try {
        regexes.push(compileRegex(p));
      } catch (err) {
        if (err instanceof RegexSyntaxError) throw new RuleCompileError(at, err.message);
        throw err;
      }
    });
  }
  let template: CompiledTemplate | null = null;
  if (e.value !== undefined) {
    try {
      template = compileTemplate(e.value, [...path, 'value']);
      checkTemplateVariables(template, earlier, [...path, 'value']);
    } catch (err) {
      if (err instanceof TemplateError) throw new RuleCompileError(err.path, err.message);
      throw err;
    }
  }
  return {
    name,
    path,
    from,
    regexes,
    template,
    pick: e.pick ?? 'first',
    ...spec,
    groups: compileGroups(e, path, regexes, earlier),
    query: null,
  };
}

/** `query:` — asks about other documents; regex, value and the reading options do not apply. */
function compileQueryExtraction(name: string, e: Extraction, path: RulePath, earlier: KnownValues): CompiledExtraction {
  for (const key of ['regex', 'value', 'from', 'pick', 'format', 'locale', 'groups'] as const)
    if (e[key] !== undefined)
      throw new RuleCompileError([...path, key], `${key} does not apply to a query; a query reads other documents`);
  const query = compileQuery(e, path, earlier);
  const type = queryValueType(query.kind, query.field, e.type, path);
  return {
    name,
    path,
    from: 'query',
    regexes: [],
    template: null,
    pick: query.kind === 'ids' ? 'all' : 'first',
    ...compileValueSpec({ ...e, type }, path, null),
    groups: [],
    query,
  };
}

export interface ExtractionOutcome {
  value: ExtractedValue | undefined;
  /** Person-readable account: which pattern matched, what text, how it parsed. */
  detail: string;
}

/** Runs one extraction; template errors propagate as TemplateError so the rule becomes an error. */
export function runExtraction(
  e: CompiledExtraction,
  doc: RuleDocument,
  scope: Record<string, unknown>,
): ExtractionOutcome {
  if (e.groups.length > 0) throw new Error(`internal: ${e.name} has groups; run it with runGroupExtraction`);
  let raws: string[] = [];
  let source = '';
  if (e.template) {
    raws = [renderTemplate(e.template, scope, [...e.path, 'value'])];
    source = 'template';
  } else {
    const text = sourceText(doc, e.from);
    for (const re of e.regexes) {
      if (e.pick === 'last') {
        const last = re.lastValue(text);
        raws = last === undefined ? [] : [last];
      } else raws = re.values(text, e.pick === 'all' ? MAX_MATCHES : 1);
      if (raws.length > 0) {
        source = `/${re.source}/`;
        break;
      }
    }
    if (raws.length === 0)
      return fallback(e, `no pattern matched in ${e.from} (${text.length.toLocaleString('en-US')} characters)`);
  }
  const parsed = raws.map((r) => parseTyped(r, e.type, e.format, e.currency, e.locale));
  const good = parsed.filter((v): v is Exclude<TypedValue, null> => v !== null);
  const shown = raws.map((r) => JSON.stringify(r.length > 60 ? `${r.slice(0, 60)}…` : r)).join(', ');
  if (good.length === 0)
    return fallback(
      e,
      `${source} gave ${shown}, which is not a valid ${e.type}${e.format ? ` in format ${e.format}` : ''}`,
    );
  const value = e.pick === 'all' ? good : good[0];
  return { value, detail: `${source} gave ${shown} → ${describeValue(value)}` };
}

/** The text an extraction reads; a list field is read one element per line. */
export function sourceText(doc: RuleDocument, from: string): string {
  const field = readField(doc, from);
  return Array.isArray(field) ? field.map((x) => asText(x) ?? '').join('\n') : (asText(field) ?? '');
}

function fallback(e: CompiledExtraction, why: string): ExtractionOutcome {
  if (e.default !== undefined)
    return { value: e.default, detail: `${why}; using the default ${JSON.stringify(e.default)}` };
  return { value: undefined, detail: why };
}
