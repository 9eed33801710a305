/**
 * evaluateRules: every rule in order against one in-memory copy of the document, so later rules see
 * earlier changes. Records a result per rule (the engine's part of a trace), merges the changes and
 * notes conflicts (two rules setting one field to different values; the later one wins).
 */
import type { CustomFieldDataType } from '../dms/types.js';
import type {
  ActionTrace,
  CreateMissing,
  DocumentChanges,
  RuleDocument,
  RunTrigger,
  TagHierarchy,
  Trace,
} from './model.js';
import type { CompiledRule } from './compile-rule.js';
import { evaluateCondition } from './conditions.js';
import { runExtraction, type CompiledExtraction, type ExtractedValue, type ExtractionOutcome } from './extraction.js';
import { runGroupExtraction } from './extraction-groups.js';
import { applyAction, type PlannedNotification } from './apply-actions.js';
import { actionSkippedBy } from './action-condition.js';
import { mergeCreateMissing, stillUsed } from './create-missing.js';
import { cloneDocument } from './fields.js';
import { formatPath, stoppedAtMissing, TemplateError } from './rule-errors.js';
import { templateDocument, templateValue, diffDocuments, ruleChanges } from './document-views.js';
import { describeValue } from './describe.js';
import { errorMessage } from '../error-message.js';
import { QueryPending, type QueryQuestion, type QuerySource } from './document-queries.js';
import { runQuery } from './evaluate-query.js';
import { triggerSkipReason } from './trigger-skip.js';

export interface RuleInput {
  compiled: CompiledRule;
  file: string;
  vars: Record<string, unknown>;
}

export interface EvaluateInput {
  document: RuleDocument;
  rules: RuleInput[];
  trigger: RunTrigger;
  now: Date;
  customFieldTypes?: Record<string, CustomFieldDataType>;
  /** The dms's tag tree, so tag actions end as Paperless stores them (ancestors added, descendants removed). */
  tagHierarchy?: TagHierarchy;
  /** Called as each rule starts, so a watchdog outside the engine can tell which rule overran its time. */
  onRule?(index: number): void;
  /** Answers `query` extractions; without it a rule with a query fails ("cannot be answered here"). */
  queries?: QuerySource;
}

/** Everything of a trace the engine knows; the run layer adds id, time, source, document and mode. */
export type RuleResult = Pick<
  Trace,
  'rule_id' | 'file' | 'status' | 'conditions' | 'extracted' | 'changes' | 'actions' | 'error'
>;

export interface Conflict {
  field: string;
  rules: string[];
  values: unknown[];
}

export interface Evaluation {
  results: RuleResult[];
  changes: DocumentChanges;
  createMissing: CreateMissing;
  conflicts: Conflict[];
  document: RuleDocument;
  /** Messages of the matched rules' `notify` actions, by rule id. */
  notifications: Record<string, PlannedNotification[]>;
  /**
   * A query over other documents the source could not answer yet: the evaluation stopped there and has no
   * results; evaluate again with its answer (runs/pipeline/evaluate-document.ts does, bounded per document).
   */
  pendingQuery?: QueryQuestion;
}

export function evaluateRules(input: EvaluateInput): Evaluation {
  try {
    return evaluateAll(input);
  } catch (err) {
    if (!(err instanceof QueryPending)) throw err;
    const document = cloneDocument(input.document);
    return {
      results: [],
      changes: {},
      createMissing: {},
      conflicts: [],
      document,
      notifications: {},
      pendingQuery: err.question,
    };
  }
}

function evaluateAll(input: EvaluateInput): Evaluation {
  let doc = cloneDocument(input.document);
  const results: RuleResult[] = [];
  const createMissing: CreateMissing = {};
  const conflicts: Conflict[] = [];
  const notifications: Record<string, PlannedNotification[]> = {};
  const setBy = new Map<string, { rule: string; value: unknown }>();
  let stoppedBy: string | null = null;

  for (let index = 0; index < input.rules.length; index++) {
    const { compiled: rule, file, vars } = input.rules[index];
    input.onRule?.(index);
    const base: RuleResult = {
      rule_id: rule.id,
      file,
      status: 'skipped',
      conditions: [],
      extracted: {},
      changes: {},
      actions: [],
      error: null,
    };
    const skip = stoppedBy
      ? `skipped: rule ${stoppedBy} matched earlier and has stop: true`
      : !rule.enabled
        ? 'skipped: the rule is disabled (enabled: false)'
        : input.trigger !== 'job' && !rule.on.includes(input.trigger)
          ? triggerSkipReason(rule.on, input.trigger)
          : null;
    if (skip) {
      results.push({ ...base, error: skip });
      continue;
    }
    // Work on a copy; a rule that fails halfway leaves no partial changes behind.
    const work = cloneDocument(doc);
    const wanted: CreateMissing = {};
    const messages: PlannedNotification[] = [];
    const result = evaluateOne(rule, file, vars, work, input, wanted, messages);
    results.push(result);
    if (result.status !== 'matched') continue;
    if (messages.length > 0) notifications[rule.id] = messages;
    mergeCreateMissing(createMissing, wanted);
    for (let i = 0; i < result.actions.length; i++) {
      const action = result.actions[i];
      for (const w of action.writes) {
        const prev = setBy.get(w.field);
        if (prev && prev.rule !== rule.id && JSON.stringify(prev.value) !== JSON.stringify(w.value)) {
          conflicts.push({ field: w.field, rules: [prev.rule, rule.id], values: [prev.value, w.value] });
          const note = `overrides ${describeValue(prev.value)} set by rule ${prev.rule} (conflict on ${w.field}; the later rule wins)`;
          result.actions[i] = { ...action, detail: action.detail ? `${action.detail}; ${note}` : note };
        }
        setBy.set(w.field, { rule: rule.id, value: w.value });
      }
    }
    result.changes = ruleChanges(doc, work);
    doc = work;
    if (rule.stop) stoppedBy = rule.id;
  }
  return {
    results: results.map(stripWrites),
    changes: diffDocuments(input.document, doc),
    createMissing: stillUsed(createMissing, doc),
    conflicts,
    document: doc,
    notifications,
  };
}

/** A `value` template built from an earlier value that found nothing has no value either (not an error). */
function extractOne(
  e: CompiledExtraction,
  work: RuleDocument,
  scope: Record<string, unknown>,
  missing: ReadonlySet<string>,
  input: EvaluateInput,
): ExtractionOutcome {
  const needs = (e.template?.globals ?? e.query?.globals ?? []).filter((n) => missing.has(n));
  try {
    if (e.query) {
      const out = runQuery(e.query, e.type, e.path, work, scope, input.now, input.queries);
      if (out.value !== undefined || e.default === undefined) return out;
      return { value: e.default, detail: `${out.detail}; using the default ${JSON.stringify(e.default)}` };
    }
    return runExtraction(e, work, scope);
  } catch (err) {
    if (!stoppedAtMissing(err, needs)) throw err;
    const value = e.default;
    return {
      value,
      detail: `${needs.join(', ')} found no value${value === undefined ? '' : `; using the default ${JSON.stringify(value)}`}`,
    };
  }
}

/** A `groups:` extraction: one trace line for the match and one per group; false when a required one is missing. */
function extractGroups(
  e: CompiledExtraction,
  work: RuleDocument,
  result: WorkingResult,
  extracted: Record<string, ExtractedValue>,
  missing: Set<string>,
): boolean {
  const out = runGroupExtraction(e, work);
  const path = formatPath(e.path);
  const names = e.groups.map((g) => g.name).join(', ');
  const found = out.values.some((v) => v.value !== undefined);
  if (!found && e.required) {
    result.conditions.push({
      path,
      description: `extract ${names} (required): ${out.detail} → not matched`,
      field: e.from,
      operator: 'required',
      result: false,
    });
    return false;
  }
  result.conditions.push({ path, description: `extract ${names}: ${out.detail}`, field: e.from, result: true });
  for (const g of out.values) {
    const at = `${path}/groups/${g.name}`;
    if (g.value === undefined) {
      result.conditions.push({
        path: at,
        description: `extract ${g.name}${g.required ? ' (required)' : ''}: ${g.detail}${g.required ? ' → not matched' : ' (no value)'}`,
        field: e.from,
        ...(g.required ? { operator: 'required' } : {}),
        result: !g.required,
      });
      if (g.required) return false;
      missing.add(g.name);
      continue;
    }
    extracted[g.name] = g.value;
    result.extracted[g.name] = g.value;
    result.conditions.push({
      path: at,
      description: `extract ${g.name}: ${g.detail}`,
      field: e.from,
      actual: g.value,
      result: true,
    });
  }
  return true;
}

type ActionWithWrites = ActionTrace & { writes: Array<{ field: string; value: unknown }> };
type WorkingResult = Omit<RuleResult, 'actions'> & { actions: ActionWithWrites[] };

function stripWrites(r: RuleResult | WorkingResult): RuleResult {
  return { ...r, actions: r.actions.map((a) => ('writes' in a ? (({ writes: _w, ...rest }) => rest)(a) : a)) };
}

function evaluateOne(
  rule: CompiledRule,
  file: string,
  vars: Record<string, unknown>,
  work: RuleDocument,
  input: EvaluateInput,
  createMissing: CreateMissing,
  notifications: PlannedNotification[],
): WorkingResult {
  const result: WorkingResult = {
    rule_id: rule.id,
    file,
    status: 'not_matched',
    conditions: [],
    extracted: {},
    changes: {},
    actions: [],
    error: null,
  };
  const now = input.now;
  const extracted: Record<string, ExtractedValue> = {};
  const missing = new Set<string>();
  const scope = (): Record<string, unknown> => {
    const s: Record<string, unknown> = {
      doc: templateDocument(work),
      vars,
      now: now.toISOString(),
      today: now.toISOString().slice(0, 10),
      rule: { id: rule.id, description: rule.description ?? '', file },
    };
    for (const [k, v] of Object.entries(extracted)) s[k] = templateValue(v);
    return s;
  };
  /** False when a required value is missing: the rule does not match. */
  const extractAll = (): boolean => {
    for (const e of rule.extract) {
      if (e.groups.length > 0) {
        if (!extractGroups(e, work, result, extracted, missing)) return false;
        continue;
      }
      const out = extractOne(e, work, scope(), missing, input);
      const path = formatPath(e.path);
      if (out.value === undefined) {
        if (e.required) {
          result.conditions.push({
            path,
            description: `extract ${e.name} (required): ${out.detail} → not matched`,
            field: e.from,
            operator: 'required',
            result: false,
          });
          return false;
        }
        result.conditions.push({
          path,
          description: `extract ${e.name}: ${out.detail} (no value)`,
          field: e.from,
          result: true,
        });
        missing.add(e.name);
        continue;
      }
      extracted[e.name] = out.value;
      result.extracted[e.name] = out.value;
      result.conditions.push({
        path,
        description: `extract ${e.name}: ${out.detail}`,
        field: e.from,
        actual: out.value,
        result: true,
      });
    }
    return true;
  };
  const changedSoFar = (): boolean => Object.keys(diffDocuments(input.document, work)).length > 0;
  let inActions = false;
  try {
    // A check that reads extracted values needs them first; otherwise conditions go first and spare the regexes.
    if (rule.extractFirst && !extractAll()) return result;
    if (rule.when) {
      const outcome = evaluateCondition(rule.when, { doc: work, now, scope }, result.conditions);
      if (outcome.error) return { ...result, status: 'error', error: outcome.error };
      if (!outcome.result) return result;
    }
    if (!rule.extractFirst && !extractAll()) return result;
    inActions = true;
    for (const a of rule.actions) {
      const skipped = actionSkippedBy(a, { doc: work, now, scope }, result.conditions);
      if (skipped) {
        result.actions.push({
          path: formatPath(a.path),
          action: a.name,
          status: 'skipped',
          detail: skipped,
          writes: [],
        });
        continue;
      }
      const out = applyAction(a, work, {
        scope,
        extracted,
        customFieldTypes: input.customFieldTypes ?? {},
        createMissing,
        tagHierarchy: input.tagHierarchy,
        notifications,
        changedSoFar,
        missing,
      });
      result.actions.push({
        path: formatPath(a.path),
        action: a.name,
        status: out.status,
        detail: out.detail,
        writes: out.writes,
      });
    }
  } catch (err) {
    if (err instanceof QueryPending) throw err;
    const failedAt = rule.actions[result.actions.length];
    if (inActions && failedAt) {
      result.actions.push({
        path: formatPath(failedAt.path),
        action: failedAt.name,
        status: 'failed',
        error: errorMessage(err),
        writes: [],
      });
    }
    return {
      ...result,
      status: err instanceof TemplateError && err.timeout ? 'timeout' : 'error',
      error: errorMessage(err),
    };
  }
  result.status = 'matched';
  return result;
}
