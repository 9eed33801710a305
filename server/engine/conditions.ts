/**
 * Condition trees: compiled once (operators checked against the field's kind, regexes compiled),
 * then evaluated against a document, recording for every test what it saw and why it held or not.
 */
import type { ConditionTrace, FieldTest, OperatorTest, RuleDocument, Scalar } from './model.js';
import { COMBINATORS, COMPARISON_OPERATORS, OPERATORS, TAG_OPERATORS, WORD_OPERATORS } from './rule-schema.js';
import {
  FUZZY_CUTOFF,
  MAX_FUZZY_LENGTH,
  fuzzyClean,
  fuzzyCleanText,
  partialRatio,
  splitWords,
  wordsFound,
} from './word-match.js';
import { RuleCompileError, formatPath, type RulePath } from './rule-errors.js';
import { fieldKind, readField, type FieldKind } from './fields.js';
import { compileRegex, RegexSyntaxError, type RuleRegex } from './regex.js';
import { isRelativeDate, parseDateAuto } from './parse-date.js';
import {
  affixValue,
  applyContains,
  asText,
  comparableOperand,
  compareValues,
  equalsValue,
  fold,
  isEmptyValue,
  tagSet,
  type OpContext,
} from './condition-ops.js';
import { describeValue, shortenValue, textAround } from './describe.js';
import { compileCheck, evaluateCheck, type CompiledCheck } from './check-condition.js';
import { applyFieldRef, checkFieldRef, isFieldRef } from './field-comparison.js';
import type { KnownValues } from './template-variables.js';
import { errorMessage } from '../error-message.js';

type Operator = (typeof OPERATORS)[number];

interface CompiledTest {
  op: Operator;
  operand: unknown;
  regexes: RuleRegex[];
  /** any_word / all_words: the words and phrases; fuzzy: the texts to resemble. */
  words?: string[];
}

export type CompiledCondition =
  | { kind: 'all'; path: RulePath; children: CompiledCondition[] }
  | { kind: 'any'; path: RulePath; children: CompiledCondition[] }
  | { kind: 'not'; path: RulePath; child: CompiledCondition }
  | { kind: 'check'; path: RulePath; check: CompiledCheck }
  | {
      kind: 'field';
      path: RulePath;
      field: string;
      fieldKind: FieldKind;
      caseSensitive: boolean;
      tests: CompiledTest[];
    };

export interface EvalContext {
  doc: RuleDocument;
  now: Date;
  /** The template scope (doc, vars, now, rule, extracted values), for `check:`. */
  scope(): Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Compiles a condition tree; `path` is where it sits in the rule (starting at `['when']`); `check:` may read `extractNames`. */
export function compileCondition(
  cond: unknown,
  path: RulePath,
  extractNames: KnownValues = new Map(),
): CompiledCondition {
  if (!isObject(cond))
    throw new RuleCompileError(path, 'a condition is a mapping with one key: all, any, not or a document field');
  const keys = Object.keys(cond);
  if (keys.length !== 1)
    throw new RuleCompileError(
      path,
      `a condition has exactly one key (all, any, not or a field), found ${keys.length ? keys.join(', ') : 'none'}; wrap several in all: [...]`,
    );
  const key = keys[0];
  const body = cond[key];
  if (key === 'all' || key === 'any') {
    if (!Array.isArray(body) || body.length === 0)
      throw new RuleCompileError([...path, key], `${key} takes a non-empty list of conditions`);
    const children = body.map((c, i) => compileCondition(c, [...path, key, i], extractNames));
    return key === 'all' ? { kind: 'all', path, children } : { kind: 'any', path, children };
  }
  if (key === 'not') return { kind: 'not', path, child: compileCondition(body, [...path, 'not'], extractNames) };
  if (key === 'check') return { kind: 'check', path, check: compileCheck(body, [...path, 'check'], extractNames) };
  const kind = fieldKind(key);
  if (!kind)
    throw new RuleCompileError(
      [...path, key],
      `unknown field "${key}"; use one of ${COMBINATORS.join(', ')}, check, a document field or custom_fields.<name>`,
    );
  return compileFieldTest(key, kind, body as FieldTest, [...path, key]);
}

function compileFieldTest(field: string, kind: FieldKind, body: FieldTest, path: RulePath): CompiledCondition {
  if (!isObject(body))
    return {
      kind: 'field',
      path,
      field,
      fieldKind: kind,
      caseSensitive: false,
      tests: [{ op: 'equals', operand: body, regexes: [] }],
    };
  const test = body as OperatorTest;
  const tests: CompiledTest[] = [];
  for (const [op, operand] of Object.entries(test)) {
    if (op === 'case_sensitive') continue;
    const at = [...path, op];
    if (!(OPERATORS as readonly string[]).includes(op))
      throw new RuleCompileError(at, `unknown operator "${op}"; operators are ${OPERATORS.join(', ')}`);
    tests.push(compileOperator(field, kind, op as Operator, operand, at));
  }
  if (tests.length === 0)
    throw new RuleCompileError(path, `give "${field}" an operator such as equals, contains or matches`);
  return { kind: 'field', path, field, fieldKind: kind, caseSensitive: test.case_sensitive === true, tests };
}

function compileOperator(field: string, kind: FieldKind, op: Operator, operand: unknown, path: RulePath): CompiledTest {
  if ((TAG_OPERATORS as readonly string[]).includes(op) && field !== 'tags' && !field.startsWith('permissions.')) {
    throw new RuleCompileError(
      path,
      `"${op}" tests a list of names and works only on tags and permissions.<view|change>.<users|groups>; on ${field} use contains_any, in or matches`,
    );
  }
  if (isFieldRef(operand)) {
    checkFieldRef(field, kind, op, operand, path);
    return { op, operand, regexes: [] };
  }
  if ((WORD_OPERATORS as readonly string[]).includes(op))
    return { op, operand, regexes: [], words: compileWords(field, kind, op, operand, path) };
  if ((COMPARISON_OPERATORS as readonly string[]).includes(op)) {
    if (kind === 'text' || kind === 'list')
      throw new RuleCompileError(
        path,
        `"${op}" compares numbers and dates; ${field} is ${kind === 'list' ? 'a list' : 'text'} (comparable: created, added, modified, archive_serial_number, page_count, owner, custom_fields.<name>)`,
      );
    if (typeof operand !== 'number' && typeof operand !== 'string')
      throw new RuleCompileError(path, `"${op}" needs a number, a date (yyyy-MM-dd) or a relative date such as -30d`);
    if (kind === 'date' && (typeof operand === 'number' || (!isRelativeDate(operand) && !parseDateAuto(operand)))) {
      throw new RuleCompileError(
        path,
        `${field} is a date: give "${op}" a date such as 2024-03-01 or a relative date such as -30d, -2w, -6m, -1y (got ${JSON.stringify(operand)})`,
      );
    }
    if (kind === 'number' && typeof operand !== 'number')
      throw new RuleCompileError(path, `${field} is a number: give "${op}" a number (got ${JSON.stringify(operand)})`);
  }
  if ((op === 'exists' || op === 'empty') && typeof operand !== 'boolean')
    throw new RuleCompileError(path, `"${op}" takes true or false`);
  if ((op === 'in' || op === 'contains_any') && !Array.isArray(operand))
    throw new RuleCompileError(path, `"${op}" takes a list`);
  const regexes: RuleRegex[] = [];
  if (op === 'matches') {
    const patterns = Array.isArray(operand) ? operand : [operand];
    patterns.forEach((p, i) => {
      const at = Array.isArray(operand) ? [...path, i] : path;
      if (typeof p !== 'string') throw new RuleCompileError(at, 'matches takes a regular expression as text');
      try {
        regexes.push(compileRegex(p));
      } catch (err) {
        if (err instanceof RegexSyntaxError) throw new RuleCompileError(at, err.message);
        throw err;
      }
    });
  }
  return { op, operand, regexes };
}

function compileWords(field: string, kind: FieldKind, op: Operator, operand: unknown, path: RulePath): string[] {
  if (kind !== 'text' && kind !== 'list' && kind !== 'custom')
    throw new RuleCompileError(path, `"${op}" reads text; ${field} is a ${kind}`);
  const texts = Array.isArray(operand) ? operand : [operand];
  if (texts.length === 0 || texts.some((t) => typeof t !== 'string'))
    throw new RuleCompileError(path, `"${op}" takes a text or a list of texts`);
  const words = op === 'fuzzy' ? (texts as string[]) : splitWords(operand as string | string[]);
  if (words.length === 0) throw new RuleCompileError(path, `"${op}" needs at least one word`);
  if (op === 'fuzzy') {
    for (const t of words) {
      if (fuzzyClean(t, true).trim() === '')
        throw new RuleCompileError(path, `fuzzy ${JSON.stringify(t)} has no letters or digits to compare`);
      if (t.length > MAX_FUZZY_LENGTH)
        throw new RuleCompileError(
          path,
          `fuzzy compares a name or a phrase of at most ${MAX_FUZZY_LENGTH} characters (got ${t.length})`,
        );
    }
  }
  return words;
}

export interface ConditionOutcome {
  result: boolean;
  /** A regex or other evaluation failure; the rule becomes an error, never a silent non-match. */
  error?: string;
}

/** Evaluates every node (no short-circuit) so the trace can explain all of them. */
export function evaluateCondition(c: CompiledCondition, ctx: EvalContext, out: ConditionTrace[]): ConditionOutcome {
  const path = formatPath(c.path);
  if (c.kind === 'all' || c.kind === 'any') {
    const index = out.length;
    out.push({ path, description: '', result: false });
    const outcomes = c.children.map((child) => evaluateCondition(child, ctx, out));
    const passed = outcomes.filter((o) => o.result).length;
    const result = c.kind === 'all' ? passed === outcomes.length : passed > 0;
    const error = outcomes.find((o) => o.error)?.error;
    out[index] = {
      path,
      operator: c.kind,
      description: `${c.kind}: ${passed} of ${outcomes.length} conditions hold → ${result}`,
      result,
      ...(error ? { error } : {}),
    };
    return { result, ...(error ? { error } : {}) };
  }
  if (c.kind === 'check') {
    try {
      const { result, actual, description } = evaluateCheck(c.check, ctx.scope(), [...c.path, 'check']);
      out.push({ path, operator: 'check', field: 'check', expected: c.check.source, actual, description, result });
      return { result };
    } catch (err) {
      const error = errorMessage(err);
      out.push({
        path,
        operator: 'check',
        field: 'check',
        expected: c.check.source,
        description: `check ${JSON.stringify(c.check.source)} → error: ${error}`,
        result: false,
        error,
      });
      return { result: false, error };
    }
  }
  if (c.kind === 'not') {
    const index = out.length;
    out.push({ path, description: '', result: false });
    const inner = evaluateCondition(c.child, ctx, out);
    const result = !inner.result;
    out[index] = {
      path,
      operator: 'not',
      description: `not: the inner condition is ${inner.result} → ${result}`,
      result,
      ...(inner.error ? { error: inner.error } : {}),
    };
    return { result, ...(inner.error ? { error: inner.error } : {}) };
  }
  const value = readField(ctx.doc, c.field);
  let all = true;
  let firstError: string | undefined;
  for (const t of c.tests) {
    const opCtx: OpContext = { kind: c.fieldKind, caseSensitive: c.caseSensitive, now: ctx.now };
    let result = false;
    let outcome: string;
    let error: string | undefined;
    let around: string | undefined;
    try {
      [result, outcome, around] = applyOperator(t, value, opCtx, ctx.doc);
    } catch (err) {
      error = `${c.field} ${t.op}: ${errorMessage(err)}`;
      outcome = `error: ${error}`;
    }
    all = all && result;
    firstError ??= error;
    out.push({
      path: c.tests.length > 1 || !isShorthand(c) ? `${path}/${t.op}` : path,
      field: c.field,
      operator: t.op,
      expected: t.operand,
      actual: around ?? shortenValue(value),
      description: `${c.field} ${t.op} ${describeOperand(t)} → ${outcome}`,
      result,
      ...(error ? { error } : {}),
    });
  }
  return { result: all, ...(firstError ? { error: firstError } : {}) };
}

function isShorthand(c: Extract<CompiledCondition, { kind: 'field' }>): boolean {
  return c.tests.length === 1 && c.path[c.path.length - 1] === c.field && c.tests[0].op === 'equals';
}

function describeOperand(t: CompiledTest): string {
  if (isFieldRef(t.operand)) return `field ${t.operand.field}`;
  if (t.op === 'matches') return t.regexes.map((r) => `/${r.source}/`).join(' or ');
  return describeValue(t.operand);
}

/** Paperless's word and fuzzy matching over the field's text (a list's elements one per line). */
function applyWords(
  op: 'any_word' | 'all_words' | 'fuzzy',
  words: string[],
  v: unknown,
  caseSensitive: boolean,
): [boolean, string, string?] {
  const text = Array.isArray(v) ? v.map((e) => asText(e) ?? '').join('\n') : asText(v);
  if (text === null || text === '') return [false, `false (the field is ${v === undefined ? 'not set' : 'empty'})`];
  const size = `${text.length.toLocaleString('en-US')} characters`;
  if (op === 'fuzzy') {
    const hay = fuzzyCleanText(text, caseSensitive);
    for (const w of words) {
      const hit = partialRatio(fuzzyClean(w, caseSensitive), hay);
      if (hit)
        return [
          true,
          `true (${describeValue(w)} scored ${Math.floor(hit.score)} of 100, at least ${FUZZY_CUTOFF} needed)`,
          textAround(hay, hit.index, hit.length),
        ];
    }
    return [false, `false (nothing in ${size} scored ${FUZZY_CUTOFF} or more)`];
  }
  const found = wordsFound(text, words, caseSensitive);
  if (op === 'any_word')
    return found.length
      ? [true, `true (found ${found.map((w) => describeValue(w)).join(', ')})`]
      : [false, `false (none of the words in ${size})`];
  const missing = words.filter((w) => !found.includes(w));
  return missing.length
    ? [false, `false (missing ${missing.map((w) => describeValue(w)).join(', ')})`]
    : [true, `true (all ${words.length} found)`];
}

/** Returns whether the test holds, a short phrase saying what was seen, and for a regex hit the text around it. */
function applyOperator(t: CompiledTest, v: unknown, c: OpContext, doc: RuleDocument): [boolean, string, string?] {
  if (isFieldRef(t.operand)) return applyFieldRef(t.op, t.operand.field, v, c, doc);
  const seen = (ok: boolean): [boolean, string] => [ok, `${ok} (saw ${describeValue(shortenValue(v))})`];
  switch (t.op) {
    case 'equals':
      return seen(equalsValue(v, t.operand, c));
    case 'in':
      return seen((t.operand as Scalar[]).some((x) => equalsValue(v, x, c)));
    case 'contains':
    case 'contains_any':
      return applyContains(t.op === 'contains' ? [t.operand] : (t.operand as string[]), v, c);
    case 'starts_with':
    case 'ends_with':
      return seen(affixValue(v, String(t.operand), c, t.op === 'ends_with'));
    case 'matches': {
      const texts = Array.isArray(v) ? v.map((e) => asText(e) ?? '') : [asText(v)];
      if (texts.length === 0 || texts[0] === null)
        return [false, `false (the field is ${v === undefined ? 'not set' : 'empty'})`];
      const hit = t.regexes.find((r) => texts.some((s) => s !== null && r.test(s)));
      const size = texts.reduce((n, s) => n + (s?.length ?? 0), 0).toLocaleString('en-US');
      if (!hit) return [false, `no match in ${size} characters`];
      const text = texts.find((s): s is string => s !== null && hit.test(s)) ?? '';
      const found = hit.firstMatch(text);
      return [
        true,
        `match for /${hit.source}/ in ${size} characters`,
        found ? textAround(text, found.index, found.text.length) : undefined,
      ];
    }
    case 'any_word':
    case 'all_words':
    case 'fuzzy':
      return applyWords(t.op, t.words ?? [], v, c.caseSensitive);
    case 'exists':
      return seen((v !== null && v !== undefined) === t.operand);
    case 'empty':
      return seen(isEmptyValue(v) === t.operand);
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const operand = comparableOperand(t.operand as number | string, c.kind, c.now);
      if (operand === null) throw new Error(`${JSON.stringify(t.operand)} is neither a number nor a date`);
      const cmp = compareValues(v, operand);
      if (cmp === null)
        return [false, `false (${describeValue(shortenValue(v))} cannot be compared with ${describeValue(operand)})`];
      const ok = t.op === 'gt' ? cmp > 0 : t.op === 'gte' ? cmp >= 0 : t.op === 'lt' ? cmp < 0 : cmp <= 0;
      return [
        ok,
        `${ok} (saw ${describeValue(shortenValue(v))}${operand !== t.operand ? `, compared with ${describeValue(operand)}` : ''})`,
      ];
    }
    case 'any':
    case 'all':
    case 'none': {
      const have = tagSet(v, c.caseSensitive);
      const wanted = (Array.isArray(t.operand) ? t.operand : [t.operand]).map((x) => fold(String(x), c.caseSensitive));
      const hits = wanted.filter((w) => have.has(w)).length;
      const ok = t.op === 'any' ? hits > 0 : t.op === 'all' ? hits === wanted.length : hits === 0;
      return seen(ok);
    }
  }
}
