import { randomUUID } from 'node:crypto';
import type { DmsClient } from '../../dms/types.js';
import { createVocabularyIndex } from '../../dms/vocabulary-index.js';
import type { ActionTrace, ConditionTrace, Trace } from '../../engine/model.js';
import { customFieldChange } from '../../engine/document-views.js';
import type { EventRecord, EventStore } from '../../history/event-store.js';
import { writePlan } from '../pipeline/write-plan.js';
import type { WriteJournal } from '../journal/write-journal.js';
import { isEmptyPlan, planDocument } from '../plan-changes.js';
import type { EchoWrites } from '../echo-writes.js';
import type { DocumentLane } from '../lane/document-lane.js';
import { toRuleDocument } from '../rule-document.js';
import { createReportBuilder } from './job-report.js';
import { mapBounded } from '../map-bounded.js';
import { decideRevert, writtenChanges, type WrittenChange } from './revert-plan.js';
import { actionForField } from '../trace-outcome.js';
import { untrash } from './revert-trash.js';
import { errorMessage } from '../../error-message.js';

export interface RevertDeps {
  dms: DmsClient;
  events: EventStore;
  /** Traces of the job being undone (newest first) and where the revert's own traces go. */
  traces: { query(query: { limit: number; event_id: number }): Trace[]; append(traces: Trace[]): void };
  echoes: EchoWrites;
  /** Every restoring write is recorded here before it is sent, like a rule's (runs/journal/). */
  journal?: Pick<WriteJournal, 'begin'>;
  dmsKey?: () => string;
  /** Each document is read and restored holding its lane, like every other path that writes it. */
  lane: DocumentLane;
  concurrency: number;
  now: () => Date;
}

/**
 * Undoes what a job wrote, document by document, from its traces; a field a person has edited since is
 * left alone (and says so in the trace). Itself a job: progress, cancel and one trace per document.
 */
export async function runRevertJob(
  deps: RevertDeps,
  eventId: number,
  target: EventRecord,
  dryRun: boolean,
  signal: AbortSignal,
): Promise<void> {
  const { events } = deps;
  events.update(eventId, { status: 'running', started_at: deps.now().toISOString() });
  const counts = { total: 0, processed: 0, matched: 0, changed: 0, errors: 0 };
  const report = createReportBuilder({});
  report.report.reverted = 0;
  report.report.skipped_edited = 0;
  try {
    const written = writtenChanges(deps.traces.query({ limit: Number.MAX_SAFE_INTEGER, event_id: target.event_id }));
    counts.total = written.length;
    events.update(eventId, { total: counts.total });
    // Undo may give back an owner or permissions, which are named by user and group.
    const index = createVocabularyIndex(await deps.dms.vocabulary({ refresh: true, principals: true }));
    await mapBounded(
      written,
      deps.concurrency,
      async (w) => {
        const revert = () => revertOne(deps, index, w, eventId, target.event_id, dryRun);
        const { trace, title } = await (dryRun ? revert() : deps.lane.exclusive(w.document, revert));
        deps.traces.append([trace]);
        counts.processed++;
        if (trace.status === 'error') counts.errors++;
        const restored = Object.keys(trace.changes).length > 0 && trace.status !== 'error';
        if (trace.status === 'matched') counts.matched++;
        if (restored) {
          counts.changed++;
          report.report.reverted = (report.report.reverted ?? 0) + 1;
        }
        if (trace.conditions.some((c) => !c.result))
          report.report.skipped_edited = (report.report.skipped_edited ?? 0) + 1;
        report.add(w.document, title, restored, restored ? trace.changes : {});
        events.update(eventId, { ...counts });
      },
      () => signal.aborted,
    );
    const status = signal.aborted ? (signal.reason === 'shutdown' ? 'interrupted' : 'cancelled') : 'done';
    events.update(eventId, {
      ...counts,
      status,
      finished_at: deps.now().toISOString(),
      error:
        status === 'done'
          ? null
          : status === 'cancelled'
            ? 'Cancelled on request.'
            : 'The service stopped while this revert ran; run it again.',
      report: report.finish({ dryRun, processed: counts.processed, errors: counts.errors, kind: 'revert' }),
    });
  } catch (err) {
    events.update(eventId, {
      ...counts,
      status: 'failed',
      finished_at: deps.now().toISOString(),
      error: `The revert stopped: ${errorMessage(err)}`,
    });
  }
}

async function revertOne(
  deps: RevertDeps,
  index: ReturnType<typeof createVocabularyIndex>,
  written: WrittenChange,
  eventId: number,
  targetEventId: number,
  dryRun: boolean,
): Promise<{ trace: Trace; title: string }> {
  const started = Date.now();
  let title = '';
  const trace: Trace = {
    id: randomUUID(),
    at: deps.now().toISOString(),
    duration_ms: 0,
    source: 'job',
    event_id: eventId,
    document: written.document,
    rule_id: written.rule_id,
    file: '',
    dry_run: dryRun,
    status: 'skipped',
    conditions: [],
    extracted: { reverts_event: targetEventId },
    changes: {},
    actions: [],
    error: null,
  };
  try {
    const back = await untrash(deps.dms, written, trace, dryRun);
    if (back.stop) {
      trace.status = 'matched';
      trace.duration_ms = Date.now() - started;
      return { trace, title };
    }
    written = back.written;
    const doc = await deps.dms.getDocument(written.document);
    title = doc.title; // the undo report names documents, never a bare id
    const current = toRuleDocument(doc, index);
    const decision = decideRevert(current, written);
    trace.conditions = [
      ...trace.conditions,
      ...Object.entries(decision.checked).map(([field, c]): ConditionTrace => ({
        path: `revert/${field}`,
        description: c.restore
          ? `${field} still holds what event ${targetEventId} wrote: restore it`
          : `${field} was changed since event ${targetEventId} (or needs nothing): leave it`,
        field,
        expected: c.expected,
        actual: c.actual,
        result: c.restore,
      })),
    ];
    const plan = planDocument(doc, decision.changes, {}, index);
    const fields = plan.changed.filter((f) => f !== 'notes');
    for (const f of fields) {
      if (f !== 'custom_fields')
        trace.changes[f] = {
          from: (current as unknown as Record<string, unknown>)[f],
          to: (decision.changes as Record<string, unknown>)[f],
        };
    }
    if (fields.includes('custom_fields')) {
      const restored = { ...current.custom_fields, ...decision.changes.custom_fields };
      for (const name of decision.changes.remove_custom_fields ?? []) delete restored[name];
      for (const name of [
        ...Object.keys(decision.changes.custom_fields ?? {}),
        ...(decision.changes.remove_custom_fields ?? []),
      ]) {
        trace.changes[`custom_fields.${name}`] = customFieldChange(current.custom_fields, restored, name);
      }
    }
    let failures: Record<string, string> = { ...plan.failures };
    if (!dryRun && !isEmptyPlan(plan)) {
      const outcome = await writePlan(deps.dms, plan, deps.echoes, {
        journal: deps.journal && {
          journal: deps.journal,
          dms: deps.dmsKey?.() ?? 'dms',
          event: eventId,
          source: 'job',
          rules: [written.rule_id],
        },
      });
      failures = { ...failures, ...(outcome.failures as Record<string, string>) };
    }
    trace.actions = [
      ...trace.actions,
      ...fields.map((f): ActionTrace => ({
        path: `revert/${f}`,
        action: actionForField(f),
        status: failures[f] ? 'failed' : dryRun ? 'planned' : 'applied',
        ...(failures[f] ? { error: failures[f] } : {}),
      })),
    ];
    const failed = Object.values(failures);
    trace.status = failed.length ? 'error' : fields.length || trace.changes.trash ? 'matched' : 'skipped';
    trace.error = failed.length ? failed.join(' ') : null;
  } catch (err) {
    trace.status = 'error';
    trace.error = `Could not revert document ${written.document}: ${errorMessage(err)}`;
  }
  trace.duration_ms = Date.now() - started;
  return { trace, title };
}
