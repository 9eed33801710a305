import type { DmsClient } from '../../dms/types.js';
import type { RunContext } from '../pipeline/plan-run.js';
import { createDocumentQueries, type DocumentQueries } from './query-answers.js';

/** Jobs whose query answers are kept at once: the few that run at a time. */
const JOBS_KEPT = 8;

/**
 * Which answers a run's questions about other documents share: a job's documents share one cache (by the job's
 * event id), so a question every document asks goes to the dms once per job; any other run asks afresh.
 */
export interface RunQueries {
  forRun(ctx: RunContext): DocumentQueries;
  /** A job wrote these fields: answers that depend on them are stale. */
  wrote(ctx: RunContext, fields: readonly string[]): void;
}

export function createRunQueries(dms: DmsClient): RunQueries {
  const byJob = new Map<number, DocumentQueries>();
  const ofJob = (ctx: RunContext) => (ctx.source === 'job' && ctx.eventId !== null ? ctx.eventId : null);
  return {
    forRun(ctx) {
      const job = ofJob(ctx);
      if (job === null) return createDocumentQueries(dms);
      let queries = byJob.get(job);
      if (!queries) {
        queries = createDocumentQueries(dms);
        byJob.set(job, queries);
        if (byJob.size > JOBS_KEPT) byJob.delete(byJob.keys().next().value as number);
      }
      return queries;
    },
    wrote(ctx, fields) {
      const job = ofJob(ctx);
      if (job !== null && fields.length > 0) byJob.get(job)?.wrote(fields);
    },
  };
}
