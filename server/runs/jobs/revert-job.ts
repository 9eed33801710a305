import type { DmsClient } from '../../dms/types.js';
import { createVocabularyIndex } from '../../dms/vocabulary-index.js';
import type { Trace } from '../../engine/model.js';
import type { EventRecord, EventStore } from '../../history/event-store.js';
import type { WriteJournal } from '../journal/write-journal.js';
import type { ArrivalJournal } from '../journal/arrival-journal.js';
import type { EchoWrites } from '../echo/echo-writes.js';
import type { DocumentLane } from '../lane/document-lane.js';
import { createReportBuilder } from './job-report.js';
import { mapBounded } from '../pipeline/map-bounded.js';
import { jobWrites } from './revert-plan.js';
import { revertDocument, type NotRestored } from './revert-document.js';
import { eventLifecycle, type StopReason } from '../event-lifecycle.js';
import { recordBuilt } from '../pipeline/record-run.js';

export interface RevertDeps {
  dms: DmsClient;
  events: EventStore;
  /** Where the revert's own traces go (one per document, like every run's). */
  traces: { append(traces: Trace[]): void };
  echoes: EchoWrites;
  /** What the event wrote (its runs, kept while it is listed), and where every restoring write is recorded first. */
  journal: Pick<WriteJournal, 'begin' | 'runsOfEvent'>;
  dmsKey?: () => string;
  /** What a kill cut short is reconciled first, so a restart's recovery never finishes a run undo has just undone. */
  recovery?: Pick<ArrivalJournal, 'ready' | 'reconcileInLane'>;
  /** Each document is read and restored holding its lane, like every other path that writes it. */
  lane: DocumentLane;
  concurrency: number;
  now: () => Date;
}

const REASONS: Record<NotRestored, string> = {
  edited: 'edited since',
  gone: 'gone from the dms',
  refused: 'refused by the dms',
};

/** "2 edited since, 1 gone from the dms". */
const reasons = (not: Record<NotRestored, number>) =>
  (Object.keys(REASONS) as NotRestored[])
    .filter((r) => not[r] > 0)
    .map((r) => `${not[r]} ${REASONS[r]}`)
    .join(', ');

/**
 * Undoes what an event wrote, document by document, from its write-journal records (not from traces, which
 * retention may have dropped). A revert that could not give every document back in full ends `failed`, its
 * error and report saying how many documents and why. Itself a job: progress, cancel and one trace per document.
 */
export async function runRevertJob(
  deps: RevertDeps,
  eventId: number,
  target: EventRecord,
  dryRun: boolean,
  signal: AbortSignal,
): Promise<void> {
  const { events } = deps;
  const life = eventLifecycle(events, 'revert', deps.now);
  life.running(eventId);
  const counts = { total: 0, processed: 0, matched: 0, changed: 0, errors: 0 };
  const report = createReportBuilder({});
  const not: Record<NotRestored, number> = { edited: 0, gone: 0, refused: 0 };
  report.report.reverted = 0;
  report.report.skipped_edited = 0;
  report.report.not_restored = not;
  try {
    await deps.recovery?.ready;
    const cut = deps.journal.runsOfEvent(target.event_id).filter((run) => run.end === null);
    for (const doc of new Set(cut.map((run) => run.entry.doc))) await deps.recovery?.reconcileInLane(doc);
    const written = jobWrites(deps.journal.runsOfEvent(target.event_id));
    if (written.length === 0 && target.changed > 0)
      throw new Error(
        `the write journal holds no record of what event ${target.event_id} wrote (it was written before the journal kept ` +
          'its records); nothing was restored.',
      );
    counts.total = written.length;
    life.progress(eventId, { total: counts.total });
    // Undo may give back an owner or permissions, which are named by user and group.
    const index = createVocabularyIndex(await deps.dms.vocabulary({ refresh: true, principals: true }));
    const dmsKey = deps.dmsKey?.() ?? 'dms';
    await mapBounded(
      written,
      deps.concurrency,
      async (w) => {
        const revert = () =>
          revertDocument(
            { dms: deps.dms, echoes: deps.echoes, journal: deps.journal, dmsKey, now: deps.now },
            index,
            w,
            eventId,
            target.event_id,
            dryRun,
          );
        const done = await (dryRun ? revert() : deps.lane.exclusive(w.document, revert));
        const { trace } = done;
        // The pipeline's record step, as every run's: one trace per document, counted the same way.
        const record = recordBuilt({ history: deps.traces }, [trace], done.wrote);
        counts.processed++;
        if (record.errors > 0) counts.errors++;
        if (record.matched > 0) counts.matched++;
        if (record.changed) counts.changed++;
        if (done.notRestored) not[done.notRestored]++;
        else report.report.reverted = (report.report.reverted ?? 0) + 1;
        report.report.skipped_edited = not.edited;
        report.add(w.document, done.title, done.wrote, done.wrote ? trace.changes : {});
        life.progress(eventId, { ...counts });
      },
      () => signal.aborted,
    );
    const missed = not.edited + not.gone + not.refused;
    const finished = {
      ...counts,
      report: report.finish({ dryRun, processed: counts.processed, errors: counts.errors, kind: 'revert' }),
    };
    if (signal.aborted) life.stopped(eventId, signal.reason as StopReason, finished);
    else if (missed > 0 && !dryRun)
      life.failed(
        eventId,
        `Restored ${counts.processed - missed} of ${counts.total} documents; ${missed} not (${reasons(not)}). ` +
          'The traces of this revert say which fields and why; a field a person edited since is left as they set it.',
        finished,
      );
    else life.done(eventId, finished);
  } catch (err) {
    life.crashed(eventId, err, {
      ...counts,
      report: report.finish({ dryRun, processed: counts.processed, errors: counts.errors, kind: 'revert' }),
    });
  }
}
