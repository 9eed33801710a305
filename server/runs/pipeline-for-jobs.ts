import type { DmsClient } from '../dms/types.js';
import type { PlannedNotification, RuleResult } from '../engine/index.js';
import { NotFoundError } from '../errors.js';
import type { TraceStore } from '../history/trace-store.js';
import type { Evaluator } from '../eval/eval-pool.js';
import type { LoadedRule } from '../rules/index.js';
import { applyPlan, type ApplyOutcome as PlanApplyOutcome } from './apply-plan.js';
import type { CreationLimiter } from './creation-guard.js';
import type { ApplyOutcome, JobContext, JobPipeline, PlannedDocument } from './jobs/job-pipeline.js';
import { hasWrite, isEmptyPlan, type DocumentPlan } from './plan-changes.js';
import type { RecentWrites } from './recent-writes.js';
import type { Notifier } from './notify/notifier.js';
import { settleNotifications } from './notify/settle-notifications.js';
import type { RunSideEffects, SideEffects } from './intents/side-effects.js';
import { documentContext, evaluateAndPlan } from './evaluate-document.js';
import { permissionProblem } from './rule-permissions.js';
import { createDocumentQueries, type DocumentQueries } from './queries/document-queries.js';
import { errorTrace, toTrace, withFieldOutcome, type FieldOutcome, type TraceContext } from './trace-outcome.js';

export interface JobPipelineDeps {
  dms: DmsClient;
  rules: { getRule(id: string): LoadedRule | undefined };
  history: Pick<TraceStore, 'append'>;
  recentWrites: RecentWrites;
  evaluator: Evaluator;
  now?: () => Date;
  notifier?: Notifier;
  /** Caps `create_missing` creations per job; without it they are not capped. */
  creations?: CreationLimiter;
  sideEffects?: SideEffects;
}

/** What plan() learnt, kept beside the PlannedDocument the job passes back to applyOne() and record(). */
interface Internal {
  rule: LoadedRule;
  result: RuleResult;
  notifications: Record<string, PlannedNotification[]>;
  plan: DocumentPlan;
  startedAt: number;
  applied?: PlanApplyOutcome;
  effects?: RunSideEffects;
}

/**
 * The run pipeline split into the three steps background jobs use (plan, apply, record), so a job can
 * group identical writes of many documents into dms bulk edits in between. Same engine, planner and
 * trace shape as manual runs.
 */
export function createJobPipeline(deps: JobPipelineDeps): JobPipeline {
  const now = deps.now ?? (() => new Date());
  const internals = new WeakMap<PlannedDocument, Internal>();
  const queries = jobQueries(deps.dms);

  const traceContext = (document: number, ctx: JobContext, startedAt: number): TraceContext => ({
    source: ctx.source,
    eventId: ctx.eventId,
    document,
    dryRun: ctx.dryRun,
    startedAt,
    now,
  });

  return {
    async plan(ruleId, document, ctx) {
      const startedAt = now().getTime();
      const rule = deps.rules.getRule(ruleId);
      if (!rule) throw new NotFoundError(`Rule "${ruleId}" is no longer loaded.`);
      const context = await documentContext(deps.dms, document, [rule]);
      const blocked = permissionProblem(rule.definition, context.index.vocabulary.forbidden);
      if (blocked) throw new Error(blocked);
      const { evaluation, plan } = await evaluateAndPlan(
        deps.evaluator,
        document,
        context,
        [rule],
        'job',
        new Date(startedAt),
        queries(ctx.eventId),
      );
      const result = evaluation.results[0];
      const failed = Object.keys(plan.failures).length > 0;
      const planned: PlannedDocument = {
        document,
        matched: result.status === 'matched',
        changes: result.changes,
        write: hasWrite(plan) ? { patch: plan.patch, tags: plan.tags, customFields: plan.customFields } : null,
        // Creating names, notes and partly failing plans go through applyOne so every field's fate is known.
        needsSingleApply:
          plan.create.length > 0 || plan.notes.length > 0 || plan.trash === true || (failed && !isEmptyPlan(plan)),
        // A plan whose only changes cannot be written is an error for the job's counts, not a quiet no-op.
        error:
          result.status === 'error'
            ? result.error
            : failed && isEmptyPlan(plan)
              ? Object.values(plan.failures).join(' ')
              : null,
      };
      const effects = ctx.dryRun
        ? undefined
        : deps.sideEffects?.forRun(document, 'job', evaluation.results, evaluation.notifications);
      internals.set(planned, { rule, result, notifications: evaluation.notifications, plan, startedAt, effects });
      return planned;
    },

    async applyOne(planned, ctx) {
      const internal = internals.get(planned);
      if (!internal) throw new Error(`document ${planned.document.id} was not planned by this pipeline`);
      internal.applied = await applyPlan(deps.dms, internal.plan, deps.recentWrites, {
        creations: deps.creations?.forRun(ctx.source, ctx.eventId),
        sideEffects: internal.effects,
      });
      const failures = Object.values(internal.applied.failures);
      if (internal.applied.dmsError) throw internal.applied.dmsError;
      if (failures.length > 0) throw new Error(failures.join(' '));
    },

    async record(ruleId, planned, outcome: ApplyOutcome, ctx) {
      const internal = internals.get(planned);
      if (!internal) {
        const rule = deps.rules.getRule(ruleId);
        const message =
          outcome.kind === 'failed' ? outcome.error : (planned.error ?? 'The document could not be evaluated.');
        deps.history.append([
          errorTrace(
            { id: ruleId, file: rule?.file ?? '' },
            message,
            traceContext(planned.document.id, ctx, now().getTime()),
          ),
        ]);
        return;
      }
      const { plan } = internal;
      const fieldOutcome: FieldOutcome = {
        dryRun: ctx.dryRun,
        changed: plan.changed,
        written: [],
        failures: plan.failures,
      };
      if (internal.applied) {
        fieldOutcome.written = internal.applied.written;
        fieldOutcome.failures = internal.applied.failures;
        fieldOutcome.superseded = internal.applied.superseded;
      } else if (outcome.kind === 'bulk') {
        fieldOutcome.written = plan.changed.filter((f) => !plan.failures[f]);
      } else if (outcome.kind === 'failed' && !ctx.dryRun) {
        fieldOutcome.failures = { ...plan.failures };
        for (const field of plan.changed) fieldOutcome.failures[field] ??= outcome.error;
      }
      if (fieldOutcome.written.length > 0) queries(ctx.eventId).wrote(fieldOutcome.written);
      const trace = withFieldOutcome(
        toTrace(internal.result, traceContext(planned.document.id, ctx, internal.startedAt)),
        fieldOutcome,
      );
      deps.history.append(
        await settleNotifications([trace], internal.notifications, {
          trigger: 'job',
          dryRun: ctx.dryRun,
          notifier: deps.notifier,
          effects: internal.effects,
        }),
      );
    },
  };
}

/** One query cache per job (by its event id), for the few jobs that run at a time. */
function jobQueries(dms: DmsClient): (eventId: number) => DocumentQueries {
  const byJob = new Map<number, DocumentQueries>();
  return (eventId) => {
    let queries = byJob.get(eventId);
    if (!queries) {
      queries = createDocumentQueries(dms);
      byJob.set(eventId, queries);
      if (byJob.size > 8) byJob.delete(byJob.keys().next().value as number);
    }
    return queries;
  };
}
