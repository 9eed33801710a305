/** runRuleTests: a rule's `tests:` examples run through the same engine, on save and on demand. */
import type { CustomFieldDataType } from '../dms/types.js';
import type { CustomFieldValue, RuleDocument, RuleTestCase } from './model.js';
import type { CompiledRule } from './compile-rule.js';
import { evaluateRules, type RuleResult } from './evaluate.js';
import { emptyDocument } from './fields.js';
import { errorMessage, type RulePath } from './errors.js';
import { sameCustomValue } from './custom-field-values.js';
import { isMoneyValue, parseMoney } from './parse-number.js';
import { describeValue } from './describe.js';

export interface RuleTestOutcome {
  name: string;
  ok: boolean;
  message: string;
  path: RulePath;
}

export interface RuleTestOptions {
  now: Date;
  customFieldTypes?: Record<string, CustomFieldDataType>;
  /** The rule's vars (from `_vars.yml`); a test's own `vars` are merged over them. */
  vars?: Record<string, unknown>;
  file?: string;
}

export function runRuleTests(compiled: CompiledRule, options: RuleTestOptions): RuleTestOutcome[] {
  return (compiled.definition.tests ?? []).map((t, i) => runOne(compiled, t, i, options));
}

function runOne(compiled: CompiledRule, t: RuleTestCase, i: number, options: RuleTestOptions): RuleTestOutcome {
  const name = t.name ?? `test ${i + 1}`;
  const path: RulePath = ['tests', i];
  const fail = (message: string, at: RulePath = path): RuleTestOutcome => ({ name, ok: false, message: `${name}: ${message}`, path: at });
  try {
    const document = testDocument(t, options.customFieldTypes ?? {});
    // The test is about this rule's behaviour, so a disabled rule or a trigger filter does not hide it.
    const rule = { ...compiled, enabled: true };
    const evaluation = evaluateRules({
      document,
      rules: [{ compiled: rule, file: options.file ?? '', vars: { ...(options.vars ?? {}), ...(t.vars ?? {}) } }],
      trigger: t.trigger ?? 'job',
      now: options.now,
      customFieldTypes: options.customFieldTypes,
    });
    const result = evaluation.results[0];
    if (result.status === 'error') return fail(`the rule failed: ${result.error}`);
    const matched = result.status === 'matched';
    if (matched !== t.expect.matched) {
      return fail(t.expect.matched ? `expected a match, but it did not match: ${whyNot(result)}` : 'expected no match, but the rule matched', [...path, 'expect', 'matched']);
    }
    for (const [field, expected] of Object.entries(t.expect.changes ?? {})) {
      const problem = compareChange(field, expected, evaluation.changes as Record<string, unknown>, evaluation.document);
      if (problem) return fail(problem, [...path, 'expect', 'changes', field]);
    }
    for (const [key, expected] of Object.entries(t.expect.extracted ?? {})) {
      const actual = result.extracted[key];
      if (!sameExpected(actual, expected)) return fail(`extracted ${key}: expected ${describeValue(expected)}, got ${describeValue(actual)}`, [...path, 'expect', 'extracted', key]);
    }
    return { name, ok: true, message: `${name}: passed`, path };
  } catch (err) {
    return fail(errorMessage(err));
  }
}

/** The test's document over an empty one; monetary fields may be written as `EUR84.37` or a number. */
function testDocument(t: RuleTestCase, types: Record<string, CustomFieldDataType>): RuleDocument {
  const doc: RuleDocument = { ...emptyDocument(), ...(t.document as Partial<RuleDocument>) };
  const custom: Record<string, CustomFieldValue> = {};
  for (const [name, value] of Object.entries(doc.custom_fields ?? {})) {
    const monetary = types[name] === 'monetary' && (typeof value === 'string' || typeof value === 'number');
    custom[name] = monetary ? (typeof value === 'number' ? { amount: value, currency: null } : (parseMoney(value) ?? value)) : value;
  }
  return { ...doc, tags: doc.tags ?? [], notes: doc.notes ?? [], custom_fields: custom };
}

/** The failed conditions, in words. */
export function whyNot(result: RuleResult): string {
  const failed = result.conditions.filter((c) => !c.result && !c.operator?.match(/^(all|any|not)$/));
  return failed.length ? failed.map((c) => c.description).join('; ') : 'no condition failed';
}

function sameExpected(actual: unknown, expected: unknown): boolean {
  if (isMoneyValue(actual)) {
    if (typeof expected === 'number') return actual.amount === expected;
    if (typeof expected === 'string') return sameCustomValue(actual, parseMoney(expected));
  }
  if (Array.isArray(actual) && Array.isArray(expected)) return actual.length === expected.length && actual.every((a, i) => sameExpected(a, expected[i]));
  if (typeof actual === 'object' && actual !== null && typeof expected === 'object' && expected !== null) return JSON.stringify(actual) === JSON.stringify(expected);
  if (typeof expected === 'string' && typeof actual === 'string' && /^\d{4}-\d{2}-\d{2}/.test(actual)) return actual.slice(0, 10) === expected.slice(0, 10);
  return actual === expected;
}

function compareChange(field: string, expected: unknown, changes: Record<string, unknown>, final: RuleDocument): string | null {
  if (field === 'custom_fields' && typeof expected === 'object' && expected !== null) {
    for (const [k, v] of Object.entries(expected)) {
      const problem = compareChange(`custom_fields.${k}`, v, changes, final);
      if (problem) return problem;
    }
    return null;
  }
  let actual: unknown;
  let changed: boolean;
  if (field.startsWith('custom_fields.')) {
    const name = field.slice('custom_fields.'.length);
    const custom = (changes.custom_fields ?? {}) as Record<string, unknown>;
    changed = name in custom;
    actual = changed ? custom[name] : final.custom_fields[name];
  } else {
    changed = field in changes;
    actual = changed ? changes[field] : (final as unknown as Record<string, unknown>)[field];
  }
  if (field === 'tags' && Array.isArray(actual) && Array.isArray(expected)) {
    const a = (actual as unknown[]).map(String).sort();
    const e = (expected as unknown[]).map(String).sort();
    if (JSON.stringify(a) === JSON.stringify(e) && changed) return null;
  } else if (changed && sameExpected(actual, expected)) return null;
  if (!changed) return `${field}: expected ${describeValue(expected)}, but the rule does not change it (it stays ${describeValue(actual)})`;
  return `${field}: expected ${describeValue(expected)}, got ${describeValue(actual)}`;
}
