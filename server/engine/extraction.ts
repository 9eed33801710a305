/**
 * Extraction: named values read from the document by regex (several patterns, pick first/last/all)
 * or computed by a template, then parsed to a type (locale-aware numbers, money and dates).
 */
import type { Extraction, ExtractionType, MoneyValue, RuleDocument, Scalar } from './model.js';
import { RuleCompileError, TemplateError, type RulePath } from './errors.js';
import { fieldKind, readField } from './fields.js';
import { compileRegex, MAX_MATCHES, RegexSyntaxError, type RuleRegex } from './regex.js';
import { compileTemplate, renderTemplate, type CompiledTemplate } from './templates.js';
import { checkTemplateVariables } from './template-variables.js';
import { parseBool, parseInteger, parseMoney, parseNumber } from './parse-number.js';
import { checkDateFormat, parseDate } from './parse-date.js';
import { asText } from './condition-ops.js';
import { describeValue } from './describe.js';

export type TypedValue = string | number | boolean | MoneyValue | null;
export type ExtractedValue = TypedValue | TypedValue[];

export interface CompiledExtraction {
  name: string;
  path: RulePath;
  from: string;
  regexes: RuleRegex[];
  template: CompiledTemplate | null;
  type: ExtractionType;
  pick: 'first' | 'last' | 'all';
  format?: string;
  currency: string | null;
  default: TypedValue | undefined;
  required: boolean;
}

export const RESERVED_NAMES = ['doc', 'vars', 'now', 'rule', 'env'];

/** Parses raw text to the extraction's type; null when it does not fit. */
export function parseTyped(raw: string, type: ExtractionType, format: string | undefined, currency: string | null): TypedValue {
  const text = raw.trim();
  switch (type) {
    case 'string':
      return text === '' ? null : text;
    case 'int':
      return parseInteger(text);
    case 'number':
      return parseNumber(text);
    case 'money':
      return parseMoney(text, currency);
    case 'date':
      return parseDate(text, format);
    case 'bool':
      return parseBool(text);
  }
}

function typedDefault(v: Scalar, e: CompiledExtraction | Extraction, currency: string | null, path: RulePath): TypedValue {
  if (v === null) return null;
  const type = e.type ?? 'string';
  if (type === 'money' && typeof v === 'number') return { amount: v, currency };
  if ((type === 'number' || type === 'int') && typeof v === 'number') return v;
  if (type === 'bool' && typeof v === 'boolean') return v;
  const parsed = parseTyped(String(v), type, type === 'date' ? undefined : e.format, currency);
  if (parsed === null) throw new RuleCompileError(path, `default ${JSON.stringify(v)} is not a valid ${type}`);
  return parsed;
}

/** `earlier` are the names extracted before this one: a `value` template may use them. */
export function compileExtraction(name: string, e: Extraction, path: RulePath, earlier: readonly string[] = []): CompiledExtraction {
  if (RESERVED_NAMES.includes(name)) throw new RuleCompileError(path, `"${name}" is reserved in templates; choose another name for this value`);
  const from = e.from ?? 'content';
  if (!fieldKind(from))
    throw new RuleCompileError([...path, 'from'], `cannot read from "${from}"; use content, title, original_file_name, notes, a document field or custom_fields.<name>`);
  if (e.regex !== undefined && e.value !== undefined) throw new RuleCompileError(path, 'give either regex (read from the document) or value (a template), not both');
  if (e.regex === undefined && e.value === undefined) throw new RuleCompileError(path, 'give regex (read from the document) or value (a template)');
  const type = e.type ?? 'string';
  if (e.format !== undefined) {
    if (type !== 'date') throw new RuleCompileError([...path, 'format'], 'format applies only to type: date');
    const problem = checkDateFormat(e.format);
    if (problem) throw new RuleCompileError([...path, 'format'], problem);
  }
  if (e.currency !== undefined && type !== 'money') throw new RuleCompileError([...path, 'currency'], 'currency applies only to type: money');
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
  const currency = e.currency ?? null;
  const compiled: CompiledExtraction = {
    name,
    path,
    from,
    regexes,
    template,
    type,
    pick: e.pick ?? 'first',
    format: e.format,
    currency,
    default: undefined,
    required: e.required === true,
  };
  if (e.default !== undefined) compiled.default = typedDefault(e.default, e, currency, [...path, 'default']);
  return compiled;
}

export interface ExtractionOutcome {
  value: ExtractedValue | undefined;
  /** Person-readable account: which pattern matched, what text, how it parsed. */
  detail: string;
}

/** Runs one extraction; template errors propagate as TemplateError so the rule becomes an error. */
export function runExtraction(e: CompiledExtraction, doc: RuleDocument, scope: Record<string, unknown>): ExtractionOutcome {
  let raws: string[] = [];
  let source = '';
  if (e.template) {
    raws = [renderTemplate(e.template, scope, [...e.path, 'value'])];
    source = 'template';
  } else {
    const field = readField(doc, e.from);
    const text = Array.isArray(field) ? field.map((x) => asText(x) ?? '').join('\n') : (asText(field) ?? '');
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
    if (raws.length === 0) return fallback(e, `no pattern matched in ${e.from} (${text.length.toLocaleString('en-US')} characters)`);
  }
  const parsed = raws.map((r) => parseTyped(r, e.type, e.format, e.currency));
  const good = parsed.filter((v): v is Exclude<TypedValue, null> => v !== null);
  const shown = raws.map((r) => JSON.stringify(r.length > 60 ? `${r.slice(0, 60)}…` : r)).join(', ');
  if (good.length === 0) return fallback(e, `${source} gave ${shown}, which is not a valid ${e.type}${e.format ? ` in format ${e.format}` : ''}`);
  const value = e.pick === 'all' ? good : good[0];
  return { value, detail: `${source} gave ${shown} → ${describeValue(value)}` };
}

function fallback(e: CompiledExtraction, why: string): ExtractionOutcome {
  if (e.default !== undefined) return { value: e.default, detail: `${why}; using the default ${JSON.stringify(e.default)}` };
  return { value: undefined, detail: why };
}
