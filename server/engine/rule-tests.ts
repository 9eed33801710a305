/** runRuleTests: a rule's `tests:` examples run through the same engine, on save and on demand. */
import type {
  ConditionTrace,
  CustomFieldValue,
  DocumentChanges,
  FieldChange,
  PermissionKind,
  PermissionTarget,
  RuleDocument,
  RuleTestCase,
  RunTrigger,
} from './model.js';
import type { CompiledRule } from './compile-rule.js';
import { evaluateRules, type RuleResult } from './evaluate.js';
import { notifyFires, type PlannedNotification } from './notify-action.js';
import { emptyDocument, fieldKind } from './fields.js';
import { type RulePath } from './rule-errors.js';
import { sameCustomValue } from './custom-field-values.js';
import { isMoneyValue, parseMoney, parseNumber } from './parse-number.js';
import { describeValue } from './describe.js';
import { completePermissions, sameNameSet } from './permissions.js';
import { errorMessage } from '../error-message.js';
import { localQuerySource } from './query-local.js';
import { parseDateAuto } from './parse-date.js';
import { TEST_DATE_PATTERN } from './rule-test-schema.js';

export interface RuleTestOutcome {
  name: string;
  ok: boolean;
  message: string;
  path: RulePath;
}

/**
 * No dms field types here on purpose: a file's tests must give the same answer at save (dms known) and
 * at start-up (dms not answered yet), so values are compared by what they say, not by the dms's types.
 */
export interface RuleTestOptions {
  now: Date;
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
  const fail = (message: string, at: RulePath = path): RuleTestOutcome => ({
    name,
    ok: false,
    message: `${name}: ${message}`,
    path: at,
  });
  const problem = testDocumentProblem(t);
  if (problem) return fail(problem.message, [...path, 'document', ...problem.at]);
  const now = t.now === undefined ? options.now : testNow(t.now);
  if (!now)
    return fail(`now must be a date such as 2025-03-01 or 2025-03-01T09:30:00Z, got ${JSON.stringify(t.now)}`, [
      ...path,
      'now',
    ]);
  try {
    const document = testDocument(t);
    // The test is about this rule's behaviour, so a disabled rule or a trigger filter does not hide it.
    const rule = { ...compiled, enabled: true };
    const evaluation = evaluateRules({
      document,
      rules: [{ compiled: rule, file: options.file ?? '', vars: { ...(options.vars ?? {}), ...(t.vars ?? {}) } }],
      trigger: t.trigger ?? 'job',
      now,
      queries: localQuerySource(otherDocuments(t)),
    });
    const result = evaluation.results[0];
    if (result.status === 'error') return fail(`the rule failed: ${result.error}`);
    const matched = result.status === 'matched';
    if (matched !== t.expect.matched) {
      return fail(
        t.expect.matched
          ? `expected a match, but it did not match: ${whyNot(result)}`
          : 'expected no match, but the rule matched',
        [...path, 'expect', 'matched'],
      );
    }
    for (const [field, expected] of Object.entries(t.expect.changes ?? {})) {
      const problem = compareChange(
        field,
        expected,
        evaluation.changes as Record<string, unknown>,
        evaluation.document,
        result.changes,
      );
      if (problem) return fail(problem, [...path, 'expect', 'changes', field]);
    }
    for (const [i, field] of (t.expect.unchanged ?? []).entries()) {
      const problem = checkUnchanged(field, evaluation.changes);
      if (problem) return fail(problem, [...path, 'expect', 'unchanged', i]);
    }
    for (const [key, expected] of Object.entries(t.expect.extracted ?? {})) {
      const actual = result.extracted[key];
      if (!sameExpected(actual, expected))
        return fail(`extracted ${key}: expected ${describeValue(expected)}, got ${describeValue(actual)}`, [
          ...path,
          'expect',
          'extracted',
          key,
        ]);
    }
    if (t.expect.notify !== undefined) {
      const problem = checkNotify(t.expect.notify, result, evaluation.notifications[compiled.id] ?? [], t.trigger);
      if (problem) return fail(problem, [...path, 'expect', 'notify']);
    }
    return { name, ok: true, message: `${name}: passed`, path };
  } catch (err) {
    return fail(errorMessage(err));
  }
}

/** `expect.notify`: the targets a real run would send to, decided by the run layer's own rule (`notifyFires`). */
function checkNotify(
  expected: string[],
  result: RuleResult,
  planned: PlannedNotification[],
  trigger: RunTrigger = 'job',
): string | null {
  const ruleWrites = result.actions.some((a) => a.action !== 'notify' && a.status === 'planned');
  const sent = planned.filter((n) => notifyFires(n.when, trigger, ruleWrites)).map((n) => n.target);
  const sorted = (list: string[]) => [...list].sort().join(', ');
  if (sorted(sent) === sorted(expected)) return null;
  const held = planned
    .filter((n) => !sent.includes(n.target))
    .map((n) => `${n.target} is not sent: the rule has no change to write (when: on_change, trigger ${trigger})`);
  return `notify: expected [${sorted(expected)}], a real run would send to [${sorted(sent)}]${held.length ? `; ${held.join('; ')}` : ''}`;
}

/** How Paperless writes a monetary value: a currency code and a plain amount, `EUR1120.00`. */
const DMS_MONEY = /^[A-Z]{3}-?\d+(\.\d+)?$/;

const DATE_FIELDS = ['created', 'added', 'modified'];
const ISO_DATE = new RegExp(TEST_DATE_PATTERN);
const TEMPLATE = /\{\{|\{%/;

/**
 * What is wrong with a test's document, checked like a rule is: it holds plain values (a template is not
 * rendered there, so `added: "{{ now }}"` would only make the test silently not match) and real dates.
 */
function testDocumentProblem(t: RuleTestCase): { message: string; at: Array<string | number> } | null {
  const doc = (t.document ?? {}) as Record<string, unknown>;
  const visit = (
    value: unknown,
    at: Array<string | number>,
  ): { message: string; at: Array<string | number> } | null => {
    if (typeof value === 'string' && TEMPLATE.test(value)) {
      return {
        message: `document.${at.join('.')} is ${JSON.stringify(value)}, but templates are not rendered in test documents; write the value itself, e.g. a date such as 2025-03-01`,
        at,
      };
    }
    if (Array.isArray(value))
      for (const [i, v] of value.entries()) {
        const p = visit(v, [...at, i]);
        if (p) return p;
      }
    else if (value && typeof value === 'object')
      for (const [k, v] of Object.entries(value)) {
        const p = visit(v, [...at, k]);
        if (p) return p;
      }
    return null;
  };
  for (const [field, value] of Object.entries(doc)) {
    const problem = visit(value, [field]);
    if (problem) return problem;
    if (DATE_FIELDS.includes(field) && typeof value === 'string' && !ISO_DATE.test(value)) {
      return {
        message: `document.${field} must be a date such as 2025-03-01 (or 2025-03-01T10:00:00Z), got ${JSON.stringify(value)}`,
        at: [field],
      };
    }
  }
  return null;
}

/** A test's pinned time: a date alone is midnight UTC of that day; null when it is no date. */
function testNow(text: unknown): Date | null {
  if (typeof text !== 'string' || !ISO_DATE.test(text)) return null;
  // Without a zone the time is UTC, never the machine's own zone.
  const iso = /^\d{4}-\d{2}-\d{2}$/.test(text)
    ? `${text}T00:00:00Z`
    : /(Z|[+-]\d{2}:?\d{2})$/.test(text)
      ? text
      : `${text}Z`;
  const d = new Date(iso.replace(' ', 'T'));
  return Number.isNaN(d.getTime()) || !parseDateAuto(text.slice(0, 10)) ? null : d;
}

/** The test's document over an empty one; a monetary field may be written as Paperless writes it (`EUR84.37`). */
/** A test's `documents`, what its queries see; without an id each gets 1001, 1002, … */
function otherDocuments(t: RuleTestCase): RuleDocument[] {
  return (t.documents ?? []).map((document, i) => testDocument({ ...t, document: { id: 1001 + i, ...document } }));
}

function testDocument(t: Pick<RuleTestCase, 'document'>): RuleDocument {
  const doc: RuleDocument = { ...emptyDocument(), ...(t.document as Partial<RuleDocument>) };
  const custom: Record<string, CustomFieldValue> = {};
  for (const [name, value] of Object.entries(doc.custom_fields ?? {})) {
    custom[name] = typeof value === 'string' && DMS_MONEY.test(value) ? (parseMoney(value) ?? value) : value;
  }
  return {
    ...doc,
    tags: doc.tags ?? [],
    notes: doc.notes ?? [],
    custom_fields: custom,
    permissions: completePermissions(t.document.permissions),
  };
}

/** The conditions that made the rule not match, in words. */
export function whyNot(result: RuleResult): string {
  const reasons = explain({ entry: null, children: conditionTree(result.conditions) }, false);
  return reasons.length ? reasons.join('; ') : 'no condition failed';
}

interface ConditionNode {
  /** null for the implicit "all" at the top, or around a field with several operators. */
  entry: ConditionTrace | null;
  children: ConditionNode[];
}

// Only a combinator line has no field: `any`/`all`/`none` under `tags` are operators, not combinators.
const isCombinator = (c: ConditionTrace): boolean =>
  c.field === undefined && (c.operator === 'all' || c.operator === 'any' || c.operator === 'not');

/** The flat, pre-order trace lines back into their tree: a combinator's children follow it, under its path. */
function conditionTree(lines: ConditionTrace[]): ConditionNode[] {
  let i = 0;
  const parse = (within: string | null): ConditionNode[] => {
    const nodes: ConditionNode[] = [];
    while (i < lines.length && (within === null || lines[i].path.startsWith(`${within}/`))) {
      const line = lines[i++];
      nodes.push(isCombinator(line) ? { entry: line, children: parse(line.path) } : { entry: line, children: [] });
    }
    return nodes;
  };
  return parse(null);
}

/** The lines that made `node` come out as `result`: failed ones for false; for a `not`, the inner ones that held. */
function explain(node: ConditionNode, result: boolean): string[] {
  const { entry, children } = node;
  if (entry && !isCombinator(entry)) return entry.result === result ? [entry.description] : [];
  const kind = entry?.operator ?? 'all';
  if (kind === 'not') return explain({ entry: null, children }, !result).map((d) => `not (${d})`);
  // An "all" is false through its failed children and true through all of them; an "any" the other way round.
  return children.filter((c) => nodeResult(c) === result).flatMap((c) => explain(c, result));
}

function nodeResult(node: ConditionNode): boolean {
  return node.entry ? node.entry.result : node.children.every(nodeResult);
}

/** A number, money amount or numeric text as a number, so `99.5`, `"99.50"` and `EUR99.50` compare equal. */
function amountOf(v: unknown): number | null {
  if (typeof v === 'number') return v;
  if (isMoneyValue(v)) return v.amount;
  if (typeof v === 'string') return parseNumber(v) ?? parseMoney(v)?.amount ?? null;
  return null;
}

function sameExpected(actual: unknown, expected: unknown): boolean {
  if (isMoneyValue(actual)) {
    if (typeof expected === 'number') return actual.amount === expected;
    if (typeof expected === 'string') return sameCustomValue(actual, parseMoney(expected));
  }
  // Without dms types a value written to a custom field stays as rendered ("99.50"), as it does at start-up.
  if (typeof actual === 'string' && (typeof expected === 'number' || isMoneyValue(expected)))
    return amountOf(actual) === amountOf(expected);
  if (Array.isArray(actual) && Array.isArray(expected))
    return actual.length === expected.length && actual.every((a, i) => sameExpected(a, expected[i]));
  if (typeof actual === 'object' && actual !== null && typeof expected === 'object' && expected !== null)
    return JSON.stringify(actual) === JSON.stringify(expected);
  if (typeof expected === 'string' && typeof actual === 'string' && /^\d{4}-\d{2}-\d{2}/.test(actual))
    return actual.slice(0, 10) === expected.slice(0, 10);
  if (typeof expected === 'string' && typeof actual === 'string') return sameText(actual, expected);
  return actual === expected;
}

/**
 * Texts that look the same are the same: any run of white space (a no-break space before "€" from `money`, a
 * narrow one in French amounts, a tab) counts as one space, and the ends are trimmed, as `set_title` writes titles.
 */
function sameText(a: string, b: string): boolean {
  const plain = (s: string) => s.replace(/\s+/g, ' ').trim();
  return plain(a) === plain(b);
}

function compareChange(
  field: string,
  expected: unknown,
  changes: Record<string, unknown>,
  final: RuleDocument,
  traced: Record<string, FieldChange>,
): string | null {
  if (
    (field === 'custom_fields' || /^permissions(\.(view|change))?$/.test(field)) &&
    typeof expected === 'object' &&
    expected !== null &&
    !Array.isArray(expected)
  ) {
    for (const [k, v] of Object.entries(expected)) {
      const problem = compareChange(`${field}.${k}`, v, changes, final, traced);
      if (problem) return problem;
    }
    return null;
  }
  const permission = /^permissions\.(view|change)\.(users|groups)$/.exec(field);
  if (permission) return comparePermissionList(field, expected, final, traced);
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
  if (!changed)
    return `${field}: expected ${describeValue(expected)}, but the rule does not change it (it stays ${describeValue(actual)})`;
  return `${field}: expected ${describeValue(expected)}, got ${describeValue(actual)}`;
}

/** `unchanged: [custom_fields.Betrag]`: the merged plan must not touch the field (neither set, cleared nor detached). */
function checkUnchanged(field: string, changes: DocumentChanges): string | null {
  if (field !== 'permissions' && field !== 'notes' && !fieldKind(field)) {
    return `unchanged names "${field}", which is no field; use title, tags, correspondent, custom_fields.<name>, … (see Fields)`;
  }
  if (field.startsWith('custom_fields.')) {
    const name = field.slice('custom_fields.'.length);
    if (changes.custom_fields && name in changes.custom_fields)
      return `${field}: expected unchanged, but the rule sets it to ${describeValue(changes.custom_fields[name])}`;
    if (changes.remove_custom_fields?.includes(name)) return `${field}: expected unchanged, but the rule detaches it`;
    return null;
  }
  const value = (changes as Record<string, unknown>)[field];
  return value === undefined
    ? null
    : `${field}: expected unchanged, but the rule changes it to ${describeValue(value)}`;
}

/** `permissions.view.groups: [Family]`: the list after the rule, compared as a set of names. */
function comparePermissionList(
  field: string,
  expected: unknown,
  final: RuleDocument,
  traced: Record<string, FieldChange>,
): string | null {
  const [, kind, target] = field.split('.') as ['permissions', PermissionKind, PermissionTarget];
  const wanted = Array.isArray(expected) ? expected.map(String) : [String(expected)];
  const actual = final.permissions?.[kind][target] ?? [];
  if (!(field in traced))
    return `${field}: expected ${describeValue(wanted)}, but the rule does not change it (it stays ${describeValue(actual)})`;
  return sameNameSet(actual, wanted)
    ? null
    : `${field}: expected ${describeValue(wanted)}, got ${describeValue(actual)}`;
}
