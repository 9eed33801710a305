import type { Trace } from '../../engine/engine.js';
import type { TraceStore } from '../../history/trace-store.js';
import type { Logger } from '../../log.js';
import type { Notifier } from '../notify/notifier.js';
import { settleNotifications } from '../notify/settle-notifications.js';
import { errorTrace, toTrace, withFieldOutcome, type TraceContext } from './trace-outcome.js';
import { changedFields, unwrittenOutcome, type ApplyOutcome } from './apply-outcome.js';
import { failedRun, type FailedRun, type PlannedRun, type RunPlan } from './plan-run.js';

export interface RecordDeps {
  history: Pick<TraceStore, 'append'>;
  logger: Logger;
  now: () => Date;
  /** Sends `notify` actions; without it a real run's notify fails in its trace. */
  notifier?: Notifier;
}

/** What one document's run came to: its traces (already in the history) and the counts every path reports. */
export interface RunRecord {
  traces: Trace[];
  /** Rules that matched (an error trace with actions matched, then failed to write). */
  matched: number;
  /** Whether the run changed (or, dry, would change) the document: see `changedFields`. */
  changed: boolean;
  errors: number;
  /** The dms error that stopped a write or the plan, if any (the traces say which actions failed). */
  dmsError: Error | null;
}

const traceContext = (run: RunPlan, now: () => Date): TraceContext => ({
  source: run.ctx.source,
  eventId: run.ctx.eventId,
  document: run.kind === 'planned' ? run.document.id : run.document,
  dryRun: run.ctx.dryRun,
  startedAt: run.startedAt,
  now,
});

/** Traces sorted as the rules were given (blocked rules' traces were made apart from the evaluation). */
function inRuleOrder(rules: PlannedRun['rules'], traces: Trace[]): Trace[] {
  const position = new Map(rules.map((rule, i) => [rule.id, i]));
  return [...traces].sort((a, b) => (position.get(a.rule_id) ?? 0) - (position.get(b.rule_id) ?? 0));
}

async function plannedTraces(deps: RecordDeps, run: PlannedRun, outcome: ApplyOutcome): Promise<Trace[]> {
  const ctx = traceContext(run, deps.now);
  const fieldOutcome = { dryRun: run.ctx.dryRun, changed: run.plan.changed, ...outcome };
  let traces = run.evaluation.results.map((result) => withFieldOutcome(toTrace(result, ctx), fieldOutcome));
  traces = await settleNotifications(traces, run.evaluation.notifications, {
    trigger: run.ctx.trigger,
    dryRun: run.ctx.dryRun,
    notifier: deps.notifier,
    effects: run.effects,
  });
  if (run.blocked.length === 0) return traces;
  return inRuleOrder(run.rules, [...traces, ...run.blocked.map(({ rule, message }) => errorTrace(rule, message, ctx))]);
}

const failureTraces = (run: FailedRun, now: () => Date): Trace[] =>
  run.rules.map((rule) => errorTrace(rule, run.message, traceContext(run, now)));

const counted = (traces: Trace[], changed: boolean, dmsError: Error | null): RunRecord => ({
  traces,
  matched: traces.filter((t) => t.status === 'matched' || (t.status === 'error' && t.actions.length > 0)).length,
  changed,
  errors: traces.filter((t) => t.status === 'error').length,
  dmsError,
});

/**
 * The record step for a trace built outside the engine (an undo restores what an event wrote, with no rule to
 * evaluate): appended and counted like every run's.
 */
export function recordBuilt(deps: Pick<RecordDeps, 'history'>, traces: Trace[], changed: boolean): RunRecord {
  deps.history.append(traces);
  return counted(traces, changed, null);
}

/** The record step for a run that was never planned: one error trace per rule, appended at once. */
export function recordFailedRun(deps: RecordDeps, run: FailedRun): RunRecord {
  const traces = failureTraces(run, deps.now);
  deps.history.append(traces);
  return counted(traces, false, run.dmsError);
}

/**
 * The record step: exactly one trace per rule and document, appended to the history, even when the plan failed
 * or settling the notifications throws; then the counts, the same way for every path. `applied` is null for a
 * plan nothing was written for (a failed plan, a job document left out of the writes).
 */
export async function recordRun(deps: RecordDeps, run: RunPlan, applied: ApplyOutcome | null): Promise<RunRecord> {
  if (run.kind === 'failed') return recordFailedRun(deps, run);
  const outcome = applied ?? unwrittenOutcome(run.plan);
  try {
    const traces = await plannedTraces(deps, run, outcome);
    deps.history.append(traces);
    return counted(traces, changedFields(run.plan, outcome, run.ctx.dryRun).length > 0, outcome.dmsError);
  } catch (err) {
    const { rules, ctx, startedAt } = run;
    return recordFailedRun(deps, failedRun(deps, { document: run.document.id, rules, ctx, startedAt }, err));
  }
}
