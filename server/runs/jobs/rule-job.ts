import type { DmsClient, DmsDocument, DocumentQuery } from '../../dms/types.js';
import type { RuleDefinition } from '../../engine/model.js';
import { errorMessage } from '../../errors.js';
import type { EventStore } from '../../history/event-store.js';
import type { RecentWrites } from '../recent-writes.js';
import type { DocumentLane } from '../lane/document-lane.js';
import { groupWrites } from './bulk-plan.js';
import { editedSinceRead } from './bulk-recheck.js';
import type { ApplyOutcome, JobContext, JobPipeline, PlannedDocument } from './job-pipeline.js';
import { createReportBuilder } from './job-report.js';
import { mapBounded } from './pool.js';
import { fieldsWrittenBy, prefilterFor } from './prefilter.js';
import { needsPrincipals, usesPermissions } from '../rule-permissions.js';

export interface RuleJobDeps {
  dms: DmsClient;
  pipeline: JobPipeline;
  events: EventStore;
  /** Tells the webhook echo guard that the service itself writes these documents (before and after the write). */
  writes: RecentWrites;
  lane: DocumentLane;
  concurrency: number;
  pageSize: DocumentQuery['pageSize'];
  now: () => Date;
}

// Enough requests in flight to keep a small gunicorn's workers busy; memory holds these pages at most.
const PAGES_AHEAD = 4;

/** Why a job stopped early: a person cancelled it, or the service is shutting down. */
export type StopReason = 'cancel' | 'shutdown';

/**
 * Runs one rule over every document the dms holds (narrowed by a safe prefilter), page by page so memory
 * stays flat, and keeps the event record's progress live. One failing document is an error trace, never
 * the end of the job; only a dms that cannot list pages at all fails it.
 */
export async function runRuleJob(
  deps: RuleJobDeps,
  eventId: number,
  rule: RuleDefinition,
  dryRun: boolean,
  signal: AbortSignal,
  resumeAfter = 0,
): Promise<void> {
  const { dms, pipeline, events } = deps;
  const ctx: JobContext = { eventId, dryRun, source: 'job' };
  // A resumed job interrupted again before its first page still resumes from where the first one stopped.
  events.update(eventId, {
    status: 'running',
    started_at: deps.now().toISOString(),
    ...(resumeAfter > 0 ? { resume_after: resumeAfter } : {}),
  });
  const counts = { total: null as number | null, processed: 0, matched: 0, changed: 0, errors: 0 };
  let prefilter: Record<string, string> = {};
  let report = createReportBuilder(prefilter);
  try {
    const vocabulary = await dms.vocabulary({ refresh: true, principals: needsPrincipals([{ definition: rule }]) });
    prefilter = prefilterFor(rule.when, vocabulary, deps.now(), {
      writes: dryRun ? undefined : fieldsWrittenBy(rule.actions as Array<Record<string, unknown>>),
    });
    report = createReportBuilder(prefilter);
    // Pages are requested ahead (the dms works on them meanwhile) and evaluated one ahead (the workers
    // evaluate the next page while this thread writes and records this one); a whole page goes to the pool at once.
    const pages = dms.pages({
      filters: prefilter,
      pageSize: deps.pageSize,
      ahead: PAGES_AHEAD,
      fullPerms: usesPermissions(rule),
    });
    const unreached = (documents: DmsDocument[]) =>
      resumeAfter > 0 ? documents.filter((d) => d.id > resumeAfter) : documents;
    const planPage = (page: DmsDocument[]) =>
      mapBounded(
        unreached(page),
        page.length,
        (doc) => planSafely(pipeline, rule.id, doc, ctx),
        () => signal.aborted,
      );
    for await (const { page, plans } of plannedAhead(pages, (page) => planPage(page.documents))) {
      counts.total ??= page.count;
      // Resuming: documents come in id order, so those up to the interrupted job's last page are done.
      const done = page.documents.length - unreached(page.documents).length;
      if (done > 0) counts.total -= done;
      const outcomes = dryRun ? new Map<number, ApplyOutcome>() : await applyHeld(deps, plans, ctx);
      for (const planned of plans) {
        const outcome: ApplyOutcome = planned.error
          ? { kind: 'failed', error: planned.error }
          : (outcomes.get(planned.document.id) ?? { kind: 'none' });
        await pipeline.record(rule.id, planned, outcome, ctx);
        counts.processed++;
        if (planned.matched) counts.matched++;
        const changed = dryRun
          ? Object.keys(planned.changes).length > 0
          : outcome.kind === 'bulk' || outcome.kind === 'single';
        if (changed) counts.changed++;
        if (outcome.kind === 'failed') counts.errors++;
        report.add(
          planned.document.id,
          planned.document.title,
          planned.matched && outcome.kind !== 'failed',
          outcome.kind === 'failed' ? {} : planned.changes,
        );
      }
      const last = page.documents.at(-1)?.id;
      // Only a page finished in full moves the resume point (a stop mid-page leaves it before that page).
      events.update(eventId, {
        ...counts,
        ...(last !== undefined && !signal.aborted ? { resume_after: Math.max(last, resumeAfter) } : {}),
      });
      if (signal.aborted) break;
    }
    const finished = {
      ...counts,
      finished_at: deps.now().toISOString(),
      report: report.finish({ dryRun, processed: counts.processed, errors: counts.errors, kind: 'job' }),
    };
    if (signal.aborted) {
      const interrupted = signal.reason === 'shutdown';
      events.update(eventId, {
        ...finished,
        status: interrupted ? 'interrupted' : 'cancelled',
        error: interrupted ? 'The service stopped while this job ran; run it again.' : 'Cancelled on request.',
      });
    } else {
      events.update(eventId, { ...finished, status: 'done' });
    }
  } catch (err) {
    events.update(eventId, {
      ...counts,
      status: 'failed',
      finished_at: deps.now().toISOString(),
      error: `The job stopped: ${errorMessage(err)}`,
      report: report.finish({ dryRun, processed: counts.processed, errors: counts.errors, kind: 'job' }),
    });
  }
}

/**
 * Yields each page with its plans, having already started planning the page after it. The first page is
 * finished alone, so a name it creates (`create_missing`) is known before the next pages are planned.
 */
async function* plannedAhead<P, R>(
  pages: AsyncIterable<P>,
  plan: (page: P) => Promise<R>,
): AsyncGenerator<{ page: P; plans: R }> {
  let previous: { page: P; plans: Promise<R> } | null = null;
  let first = true;
  for await (const page of pages) {
    if (first) {
      first = false;
      yield { page, plans: await plan(page) };
      continue;
    }
    const current = { page, plans: plan(page) };
    // Its failure is reported when it is awaited below, not as an unhandled rejection meanwhile.
    current.plans.catch(() => undefined);
    if (previous) yield { page: previous.page, plans: await previous.plans };
    previous = current;
  }
  if (previous) yield { page: previous.page, plans: await previous.plans };
}

async function planSafely(
  pipeline: JobPipeline,
  ruleId: string,
  document: DmsDocument,
  ctx: JobContext,
): Promise<PlannedDocument> {
  try {
    return await pipeline.plan(ruleId, document, ctx);
  } catch (err) {
    return { document, matched: false, changes: {}, write: null, needsSingleApply: false, error: errorMessage(err) };
  }
}

/** Holds the lanes of the page's documents that have something to write while writing them. */
function applyHeld(deps: RuleJobDeps, plans: PlannedDocument[], ctx: JobContext): Promise<Map<number, ApplyOutcome>> {
  const writing = plans.filter((p) => !p.error && (p.write !== null || p.needsSingleApply)).map((p) => p.document.id);
  return deps.lane.exclusiveAll(writing, () => applyPlans(deps, plans, ctx));
}

/** Writes one page's plans: identical edits as bulk edits, the rest one by one; a failed bulk edit falls back to single writes. */
async function applyPlans(
  deps: RuleJobDeps,
  plans: PlannedDocument[],
  ctx: JobContext,
): Promise<Map<number, ApplyOutcome>> {
  const outcomes = new Map<number, ApplyOutcome>();
  const byId = new Map(plans.map((p) => [p.document.id, p]));
  const writable = plans.filter((p) => !p.error && (p.write !== null || p.needsSingleApply));
  const bulkable = writable.flatMap((p) =>
    !p.needsSingleApply && p.write ? [{ document: p.document.id, write: p.write }] : [],
  );
  const { groups, singles } = groupWrites(bulkable);
  const single = new Set([...singles, ...writable.filter((p) => p.needsSingleApply).map((p) => p.document.id)]);
  for (const id of await editedSinceRead(deps.dms, groups, byId)) single.add(id);

  for (const group of groups) {
    if (group.documents.length === 0) continue;
    // Marked before the write, as for single writes: the dms's "document updated" echo may arrive before we resume.
    for (const id of group.documents) deps.writes.mark(id);
    try {
      for (const op of group.ops) await deps.dms.bulkEdit(group.documents, op.method, op.parameters);
      for (const id of group.documents) outcomes.set(id, { kind: 'bulk' });
    } catch {
      // Partly applied is fine to retry: every write sets a target state or a difference, so single writes finish the job.
      for (const id of group.documents) single.add(id);
      // Each is marked and settled again by its single write: the loop breaker counts one write per document.
      for (const id of group.documents) deps.writes.refused(id);
      continue;
    }
    // A bulk edit answers nothing about the documents: the guard reads their state back.
    for (const id of group.documents) deps.writes.settle(id);
  }
  await mapBounded([...single], deps.concurrency, async (id) => {
    const planned = byId.get(id) as PlannedDocument;
    try {
      await deps.pipeline.applyOne(planned, ctx);
      outcomes.set(id, { kind: 'single' });
    } catch (err) {
      outcomes.set(id, { kind: 'failed', error: errorMessage(err) });
    }
  });
  return outcomes;
}
