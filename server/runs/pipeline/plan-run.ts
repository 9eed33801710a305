import type { DmsClient, DmsDocument } from '../../dms/types.js';
import type { RunTrigger, TraceSource } from '../../engine/engine.js';
import type { DocumentEvaluation } from '../../eval/eval-protocol.js';
import type { Evaluator } from '../../eval/eval-pool.js';
import { DmsError } from '../../dms/dms-errors.js';
import { errorMessage } from '../../error-message.js';
import type { Logger } from '../../log.js';
import type { LoadedRule } from '../../rules/rules.js';
import { documentContext, evaluateAndPlan } from './evaluate-document.js';
import type { RunSideEffects, SideEffects } from '../intents/side-effects.js';
import type { DocumentPlan } from './plan-changes.js';
import type { DocumentQueries } from '../queries/query-answers.js';
import { splitByPermission } from './rule-permissions.js';

/** Why and how a document is run: the same four values on every path. */
export interface RunContext {
  trigger: RunTrigger;
  source: TraceSource;
  /** The event (job, webhook delivery, catch-up) the traces belong to; null for a manual run. */
  eventId: number | null;
  dryRun: boolean;
}

/** A document evaluated and planned: everything the write and the record steps need, passed on as a value. */
export interface PlannedRun {
  kind: 'planned';
  document: DmsDocument;
  /** The rules asked for, in order (the traces keep it). */
  rules: readonly LoadedRule[];
  ctx: RunContext;
  startedAt: number;
  evaluation: DocumentEvaluation;
  plan: DocumentPlan;
  /** Rules the token's permissions keep from running; each gets an error trace saying why. */
  blocked: Array<{ rule: LoadedRule; message: string }>;
  /** The run's notes and notifications as durable intents (real runs with the intent store). */
  effects?: RunSideEffects;
}

/** A document that could not be planned (the dms failed, the evaluation threw): every rule's trace says so. */
export interface FailedRun {
  kind: 'failed';
  document: number;
  rules: readonly LoadedRule[];
  ctx: RunContext;
  startedAt: number;
  message: string;
  /** Set when the dms was the cause (a synchronous run answers 502). */
  dmsError: Error | null;
}

export type RunPlan = PlannedRun | FailedRun;

export interface PlanDeps {
  dms: DmsClient;
  evaluator: Evaluator;
  logger: Logger;
  now: () => Date;
  sideEffects?: SideEffects;
  /** Where a rule's questions about other documents are answered (and cached) for this run or job. */
  queriesFor(ctx: RunContext): DocumentQueries;
}

/** A failed run from an error: a dms error is said as such, anything else is logged with its stack. */
export function failedRun(
  deps: Pick<PlanDeps, 'logger'>,
  run: Omit<FailedRun, 'kind' | 'message' | 'dmsError'>,
  err: unknown,
): FailedRun {
  const upstream = err instanceof DmsError;
  if (!upstream)
    deps.logger.error(
      `run of document ${run.document} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
    );
  return {
    kind: 'failed',
    document: run.document,
    rules: run.rules,
    ctx: run.ctx,
    startedAt: run.startedAt,
    message: upstream ? `The dms failed: ${errorMessage(err)}` : `The run failed: ${errorMessage(err)}`,
    dmsError: upstream ? err : null,
  };
}

/**
 * The plan step: the document's vocabulary, the rules the token may run, the engine (in the evaluation pool),
 * one merged plan. Never throws: a failure is a `FailedRun` the record step turns into one trace per rule.
 */
export async function planRun(
  deps: PlanDeps,
  document: DmsDocument,
  rules: readonly LoadedRule[],
  ctx: RunContext,
): Promise<RunPlan> {
  const startedAt = deps.now().getTime();
  try {
    const context = await documentContext(deps.dms, document, rules);
    const { runnable, blocked } = splitByPermission([...rules], context.index.vocabulary.forbidden);
    const { evaluation, plan } = await evaluateAndPlan(
      deps.evaluator,
      document,
      context,
      runnable,
      ctx.trigger,
      new Date(startedAt),
      deps.queriesFor(ctx),
    );
    // A dry run's effects only look (what was sent already), so it says what the real run would do.
    const effects = deps.sideEffects?.forRun(document, ctx.trigger, evaluation.results, evaluation.notifications, {
      dryRun: ctx.dryRun,
      eventId: ctx.eventId,
    });
    return { kind: 'planned', document, rules, ctx, startedAt, evaluation, plan, blocked, effects };
  } catch (err) {
    return failedRun(deps, { document: document.id, rules, ctx, startedAt }, err);
  }
}
