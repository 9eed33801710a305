import type { DmsDocument, DmsVocabulary, DocumentQuery } from '../../dms/types.js';
import type { Trace } from '../../engine/model.js';
import type { EventStore } from '../../history/event-store.js';
import type { LoadedRule } from '../../rules/rules.js';
import { mapBounded } from '../pipeline/map-bounded.js';
import type { ApplyOutcome } from '../pipeline/apply-outcome.js';
import type { RunContext, RunPlan } from '../pipeline/plan-run.js';
import type { RunPipeline } from '../pipeline/run-pipeline.js';
import { needsPrincipals, usesPermissions } from '../pipeline/rule-permissions.js';
import { eventLifecycle, type StopReason } from '../event-lifecycle.js';
import { createReportBuilder } from './job-report.js';
import { writePageHeld, type PageWriteDeps } from './page-writes.js';
import type { ArrivalJournal } from '../journal/arrival-journal.js';
import { jobVocabulary } from './job-vocabulary.js';
import { fieldsWrittenBy, prefilterFor, prefilterNeedsNames } from './prefilter.js';

export interface RuleJobDeps extends PageWriteDeps {
  pipeline: RunPipeline;
  /** Jobs wait for the start's reconciliation; a resumed one reconciles its documents before it decides what is done. */
  recovery?: Pick<ArrivalJournal, 'ready' | 'reconcileInLane'>;
  events: EventStore;
  pageSize: DocumentQuery['pageSize'];
  now: () => Date;
}

// What a prefilter that needs no names is built from.
const NO_NAMES: DmsVocabulary = {
  tags: [],
  correspondents: [],
  document_types: [],
  storage_paths: [],
  custom_fields: [],
};

// Enough requests in flight to keep a small granian's workers busy; memory holds these pages at most.
const PAGES_AHEAD = 4;

/**
 * Runs one rule over every document the dms holds (narrowed by a safe prefilter), page by page so memory
 * stays flat, and keeps the event record's progress live. One failing document is an error trace, never
 * the end of the job; only a dms that cannot list pages at all fails it. `rule` is the version the job
 * started with: the prefilter and every document's evaluation use it, whatever is saved meanwhile.
 */
export async function runRuleJob(
  deps: RuleJobDeps,
  eventId: number,
  rule: LoadedRule,
  dryRun: boolean,
  signal: AbortSignal,
  resumeAfter = 0,
  /** The interrupted jobs this one continues: a document the journal says one of them wrote is not run again. */
  continues: readonly number[] = [],
): Promise<void> {
  const { dms, pipeline, events } = deps;
  const { when, actions } = rule.definition;
  const ctx: RunContext = { trigger: 'job', source: 'job', eventId, dryRun };
  const life = eventLifecycle(events, 'job', deps.now);
  // A resumed job interrupted again before its first page still resumes from where the first one stopped.
  life.running(eventId, resumeAfter > 0 ? { resume_after: resumeAfter } : {});
  // A job started while the start's reconciliation runs waits for it: the documents a kill cut short are then as
  // the dms holds them, and the notes left to add are the retrier's before the job asks.
  await deps.recovery?.ready;
  const counts: JobCounts = { total: null, processed: 0, matched: 0, changed: 0, errors: 0 };
  let prefilter: Record<string, string> = {};
  let report = createReportBuilder(prefilter);
  try {
    const startedAt = Date.now();
    // A prefilter that maps names to ids needs the dms's names as they are now, before the first page. Any other
    // job takes the cached copy or reads it beside its first pages (five lists before them cost 0.15× of
    // a 1,000-document read on a slow dms), and planning waits for it.
    const early = prefilterNeedsNames(when)
      ? await dms.vocabulary({ principals: needsPrincipals([rule]), fetchedSince: startedAt })
      : null;
    const vocabulary = early ? Promise.resolve(early) : jobVocabulary(dms, rule, startedAt);
    // Its failure is reported when the first page is planned (the job's error), not as an unhandled rejection.
    vocabulary.catch(() => undefined);
    prefilter = prefilterFor(when, early ?? NO_NAMES, deps.now(), {
      writes: dryRun ? undefined : fieldsWrittenBy(actions as Array<Record<string, unknown>>),
    });
    report = createReportBuilder(prefilter);
    // Pages are requested ahead (the dms works on them meanwhile) and evaluated one ahead (the workers
    // evaluate the next page while this thread writes and records this one); a whole page goes to the pool at once.
    const pages = dms.pages({
      filters: prefilter,
      pageSize: deps.pageSize,
      ahead: PAGES_AHEAD,
      fullPerms: usesPermissions(rule.definition),
    });
    // The resume point moves per finished page; the journal knows every document written since (a kill mid-page).
    const writtenBefore = (id: number) =>
      continues.some((event) => deps.journal?.appliedFor(event, deps.dmsKey?.() ?? 'dms', id));
    const unreached = (documents: DmsDocument[]) =>
      resumeAfter > 0 || continues.length > 0
        ? documents.filter((d) => d.id > resumeAfter && !writtenBefore(d.id))
        : documents;
    const planPage = async (page: DmsDocument[]) => {
      await vocabulary;
      // Whether a continued job wrote a document is known only once its interrupted writes are reconciled.
      if (continues.length > 0) for (const { id } of page) await deps.recovery?.reconcileInLane(id);
      return mapBounded(
        unreached(page),
        page.length,
        (doc) => pipeline.plan(doc, [rule], ctx),
        () => signal.aborted,
      );
    };
    for await (const { page, plans } of plannedAhead(pages, (page) => planPage(page.documents))) {
      counts.total ??= page.count;
      // Resuming: documents come in id order, so those up to the interrupted job's last page are done.
      const done = page.documents.length - unreached(page.documents).length;
      if (done > 0) counts.total -= done;
      const outcomes = dryRun ? new Map<number, ApplyOutcome>() : await writePageHeld(deps, plans);
      await recordPage(pipeline, plans, outcomes, counts, report);
      const last = page.documents.at(-1)?.id;
      // Only a page finished in full moves the resume point (a stop mid-page leaves it before that page).
      life.progress(eventId, {
        ...counts,
        ...(last !== undefined && !signal.aborted ? { resume_after: Math.max(last, resumeAfter) } : {}),
      });
      if (signal.aborted) break;
    }
    const finished = {
      ...counts,
      report: report.finish({ dryRun, processed: counts.processed, errors: counts.errors, kind: 'job' }),
    };
    if (signal.aborted) life.stopped(eventId, signal.reason as StopReason, finished);
    else life.done(eventId, finished);
  } catch (err) {
    life.crashed(eventId, err, {
      ...counts,
      report: report.finish({ dryRun, processed: counts.processed, errors: counts.errors, kind: 'job' }),
    });
  }
}

type JobCounts = { total: number | null; processed: number; matched: number; changed: number; errors: number };

/**
 * The record step for each document of a page, counted and added to the report. Its own function, not a loop
 * inside `runRuleJob`: resumed once per document, it is what gets optimised, and it stays optimised from job to
 * job; inside the job function, V8 optimised the whole job mid-job and threw that away at its end, once per job.
 */
async function recordPage(
  pipeline: RunPipeline,
  plans: readonly RunPlan[],
  outcomes: ReadonlyMap<number, ApplyOutcome>,
  counts: JobCounts,
  report: ReturnType<typeof createReportBuilder>,
): Promise<void> {
  for (const planned of plans) {
    const id = planned.kind === 'planned' ? planned.document.id : planned.document;
    const record = await pipeline.record(planned, outcomes.get(id) ?? null);
    const failed = record.errors > 0;
    counts.processed++;
    if (record.matched > 0) counts.matched++;
    if (record.changed) counts.changed++;
    if (failed) counts.errors++;
    report.add(id, titleOf(planned), record.matched > 0 && !failed, failed ? {} : changesOf(record.traces));
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

const titleOf = (planned: RunPlan): string => (planned.kind === 'planned' ? planned.document.title : '');

/** The rule's changes as the report lists them (the job runs one rule: one trace per document). */
const changesOf = (traces: readonly Trace[]): Trace['changes'] =>
  Object.assign({}, ...traces.map((t) => t.changes)) as Trace['changes'];
