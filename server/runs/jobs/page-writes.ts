import type { DmsClient } from '../../dms/types.js';
import { errorMessage } from '../../error-message.js';
import type { EchoWrites } from '../echo/echo-writes.js';
import type { DocumentLane } from '../lane/document-lane.js';
import { mapBounded } from '../pipeline/map-bounded.js';
import { bulkWrittenOutcome, refusedOutcome, type ApplyOutcome } from '../pipeline/apply-outcome.js';
import type { PlannedRun, RunPlan } from '../pipeline/plan-run.js';
import type { RunPipeline } from '../pipeline/run-pipeline.js';
import { isEmptyPlan, type ChangeField, type DocumentPlan } from '../pipeline/plan-changes.js';
import { groupWrites } from './bulk-plan.js';
import { editedSinceRead } from './bulk-recheck.js';
import { fieldsOf, readValuesOf, type JournalWrite } from '../journal/journal-records.js';
import { answerUnknown } from '../journal/reconcile.js';
import type { RunHandle, WriteJournal } from '../journal/write-journal.js';

export interface PageWriteDeps {
  dms: DmsClient;
  pipeline: Pick<RunPipeline, 'write'>;
  /** Told before and after each bulk edit, as `writePlan` tells it for single writes. */
  echoes: EchoWrites;
  lane: DocumentLane;
  concurrency: number;
  /** Where each document's part of a bulk edit is recorded before it is sent (runs/journal/). */
  journal?: Pick<WriteJournal, 'begin' | 'appliedFor'>;
  dmsKey?: () => string;
}

/** A bulk-edited document's writes as the journal records them: the same requests its own write would send. */
function bulkWrites(plan: DocumentPlan): JournalWrite[] {
  const writes: JournalWrite[] = [];
  if (Object.keys(plan.patch).length > 0) writes.push({ kind: 'patch', patch: plan.patch });
  if (plan.tags) writes.push({ kind: 'tags', add: plan.tags.add, remove: plan.tags.remove });
  if (plan.customFields)
    writes.push({ kind: 'custom_fields', set: plan.customFields.set, remove: plan.customFields.remove });
  return writes;
}

/** Names to create, notes, the trash and partly failing plans need their own writes, so each field's fate is known. */
const needsOwnWrite = (plan: DocumentPlan): boolean =>
  plan.create.length > 0 || plan.notes.length > 0 || plan.trash === true || Object.keys(plan.failures).length > 0;

/** The planned documents of a page that have something to write. */
function writable(plans: readonly RunPlan[]): PlannedRun[] {
  return plans.filter((p): p is PlannedRun => p.kind === 'planned' && !isEmptyPlan(p.plan));
}

/** Holds the lanes of the page's documents that have something to write while writing them. */
export function writePageHeld(deps: PageWriteDeps, plans: readonly RunPlan[]): Promise<Map<number, ApplyOutcome>> {
  const writing = writable(plans);
  return deps.lane.exclusiveAll(
    writing.map((p) => p.document.id),
    () => writePlans(deps, writing),
  );
}

/**
 * Writes planned documents whose lanes the caller holds (a job's page, a batch of webhook deliveries): identical
 * edits as bulk edits, the rest one by one; a failed bulk edit falls back to single writes.
 */
export async function writePlans(
  deps: Omit<PageWriteDeps, 'lane'>,
  writing: readonly PlannedRun[],
): Promise<Map<number, ApplyOutcome>> {
  const outcomes = new Map<number, ApplyOutcome>();
  const byId = new Map(writing.map((p) => [p.document.id, p]));
  const bulkable = writing.flatMap((p) =>
    needsOwnWrite(p.plan)
      ? []
      : [
          {
            document: p.document.id,
            write: { patch: p.plan.patch, tags: p.plan.tags, customFields: p.plan.customFields },
          },
        ],
  );
  const { groups, singles } = groupWrites(bulkable);
  const single = new Set([...singles, ...writing.filter((p) => needsOwnWrite(p.plan)).map((p) => p.document.id)]);
  for (const id of await editedSinceRead(deps.dms, groups, byId)) single.add(id);

  for (const group of groups) {
    if (group.documents.length === 0) continue;
    try {
      // The notifications these writes set off are recorded before they leave, as for single writes (write-plan.ts).
      await Promise.all(
        group.documents.flatMap((id) => {
          const planned = byId.get(id) as PlannedRun;
          const fields = bulkWrites(planned.plan).flatMap(fieldsOf) as ChangeField[];
          return planned.effects ? [planned.effects.prepare([], fields)] : [];
        }),
      );
    } catch (err) {
      for (const id of group.documents)
        outcomes.set(id, refusedOutcome((byId.get(id) as PlannedRun).plan, errorMessage(err)));
      continue;
    }
    let journaled: RunHandle[] = [];
    if (deps.journal) {
      try {
        // One sync for the whole group, before the bulk edit leaves.
        journaled = await deps.journal.begin(
          group.documents.map((id) => {
            const planned = byId.get(id) as PlannedRun;
            return {
              dms: deps.dmsKey?.() ?? 'dms',
              doc: id,
              event: planned.ctx.eventId,
              source: planned.ctx.source,
              rules: planned.evaluation.results.filter((r) => r.status === 'matched').map((r) => r.rule_id),
              read: readValuesOf(planned.plan.source.document),
              writes: bulkWrites(planned.plan),
            };
          }),
        );
      } catch (err) {
        for (const id of group.documents)
          outcomes.set(id, refusedOutcome((byId.get(id) as PlannedRun).plan, errorMessage(err)));
        continue;
      }
    }
    const ended = (ok: boolean, error?: string) => {
      for (const handle of journaled) {
        handle.run.entry.writes.forEach((_, i) => handle.outcome(i, ok ? { ok } : { ok, ...(error ? { error } : {}) }));
        handle.end(ok ? 'applied' : 'not_applied');
      }
    };
    // Marked before the write, as for single writes: the dms's "document updated" echo may arrive before we resume.
    for (const id of group.documents) deps.echoes.mark(id);
    try {
      for (const op of group.ops) await deps.dms.bulkEdit(group.documents, op.method, op.parameters);
      for (const id of group.documents) outcomes.set(id, bulkWrittenOutcome((byId.get(id) as PlannedRun).plan));
      ended(true);
    } catch (err) {
      // Each document's single write below re-reads it and records a run of its own. A bulk edit Paperless may
      // have applied (no answer came) stays unfinished for reconciliation, as a write a kill cut off does.
      if (!answerUnknown(err)) ended(false, errorMessage(err));
      // Partly applied is fine to retry: every write sets a target state or a difference, so single writes finish the job.
      for (const id of group.documents) single.add(id);
      // Each is marked and settled again by its single write: the loop breaker counts one write per document.
      for (const id of group.documents) deps.echoes.refused(id);
      continue;
    }
    // A bulk edit answers nothing about the documents: the ledger reads their state back, and what changed there
    // besides the written fields (a person's edit, a workflow's reaction) keeps it from counting as the job's own.
    for (const id of group.documents) {
      const { plan } = byId.get(id) as PlannedRun;
      deps.echoes.settle(id, undefined, { before: plan.source.document, fields: plan.changed });
    }
  }
  await mapBounded([...single], deps.concurrency, async (id) => {
    const planned = byId.get(id) as PlannedRun;
    try {
      outcomes.set(id, await deps.pipeline.write(planned));
    } catch (err) {
      outcomes.set(id, refusedOutcome(planned.plan, errorMessage(err), err instanceof Error ? err : null));
    }
  });
  return outcomes;
}
