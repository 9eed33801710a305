import type { DmsDocument } from '../../dms/types.js';
import type { LoadedRule } from '../../rules/rules.js';
import type { ApplyOutcome } from './apply-outcome.js';
import { failedRun, planRun, type PlanDeps, type PlannedRun, type RunContext, type RunPlan } from './plan-run.js';
import { recordFailedRun, recordRun, type RecordDeps, type RunRecord } from './record-run.js';
import { writeRun, type WriteDeps } from './write-run.js';
import { createRunQueries } from '../queries/run-queries.js';

export type RunPipelineDeps = Omit<PlanDeps, 'queriesFor'> & WriteDeps & RecordDeps;

/**
 * The one run pipeline (docs/jobs-and-webhook.md, docs/architecture.md): plan → write → record, each step a function of
 * the values the one before returned. Manual runs, webhook deliveries and catch-up call `run`; jobs (and so
 * schedules) call the three steps themselves, to write many documents' plans as bulk edits in between.
 * Every caller that writes holds the document's lane (`runs/lane/`) around the write.
 */
export interface RunPipeline {
  /** Evaluates the rules against the document and merges their plans; never throws (a failure is a value). */
  plan(document: DmsDocument, rules: readonly LoadedRule[], ctx: RunContext): Promise<RunPlan>;
  /** Writes one planned document on its own (nothing in a dry run or while the loop breaker holds it). */
  write(planned: PlannedRun): Promise<ApplyOutcome>;
  /** One trace per rule into the history, and the counts; `outcome` null when nothing was written. */
  record(run: RunPlan, outcome: ApplyOutcome | null): Promise<RunRecord>;
  /** The three steps for one document. */
  run(document: DmsDocument, rules: readonly LoadedRule[], ctx: RunContext): Promise<RunRecord>;
  /** One error trace per rule for a document that could not even be fetched, so the failure is in the history. */
  fail(document: number, rules: readonly LoadedRule[], ctx: RunContext, message: string): RunRecord;
}

export function createRunPipeline(deps: RunPipelineDeps): RunPipeline {
  const queries = createRunQueries(deps.dms);
  const planDeps: PlanDeps = { ...deps, queriesFor: (of) => queries.forRun(of) };
  const plan = (document: DmsDocument, rules: readonly LoadedRule[], ctx: RunContext) =>
    planRun(planDeps, document, rules, ctx);
  const write = (planned: PlannedRun) => writeRun(deps, planned);
  const record = (run: RunPlan, outcome: ApplyOutcome | null) => {
    // A job's answers about other documents that depend on a field it just wrote are asked again.
    if (outcome) queries.wrote(run.ctx, outcome.written);
    return recordRun(deps, run, outcome);
  };

  return {
    plan,
    write,
    record,
    async run(document, rules, ctx) {
      const planned = await plan(document, rules, ctx);
      if (planned.kind === 'failed') return record(planned, null);
      let outcome: ApplyOutcome;
      try {
        outcome = await write(planned);
      } catch (err) {
        // writePlan returns the dms's refusals; what throws here is unexpected, and still gets its traces.
        const { rules: asked, ctx: context, startedAt } = planned;
        return record(failedRun(deps, { document: document.id, rules: asked, ctx: context, startedAt }, err), null);
      }
      return record(planned, outcome);
    },
    fail(document, rules, ctx, message) {
      return recordFailedRun(deps, {
        kind: 'failed',
        document,
        rules,
        ctx,
        startedAt: deps.now().getTime(),
        message,
        dmsError: null,
      });
    },
  };
}
