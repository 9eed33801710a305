import type { DmsClient, DmsDocument } from '../../dms/types.js';
import { DmsNotFoundError } from '../../dms/dms-errors.js';
import { errorMessage } from '../../error-message.js';
import type { Logger } from '../../log.js';
import type { JournalWrite } from './journal-records.js';
import { appliedNote, isApplied, unchangedBesides, untouchedSinceRead } from './reconcile.js';
import type { JournalRun, WriteJournal } from './write-journal.js';

export interface RecoveryDeps {
  journal: Pick<WriteJournal, 'unfinished' | 'resume'>;
  dms: Pick<DmsClient, 'getDocument' | 'updateDocument' | 'bulkEdit' | 'trashDocument'>;
  dmsKey: string;
  logger: Logger;
  /** A run found applied in full, on a document nobody else changed since: its state is the service's own. */
  ownState?(doc: DmsDocument, run: JournalRun): void;
  /**
   * Holds the document's lane while its runs are read and finished; absent when the caller holds it already (an
   * arrival reconciling its own document).
   */
  hold?<T>(doc: number, work: () => Promise<T>): Promise<T>;
}

export interface RecoveryReport {
  applied: number;
  notApplied: number;
  completed: number;
  /** Runs left for a later start: the dms could not be read, or they belong to another dms. */
  left: number;
}

/**
 * At start: every run a kill cut short (begun, never ended) is reconciled against the document as the dms holds
 * it now. A request whose answer never came is looked for in the document: applied → recorded as done, nothing
 * sent again; not applied → recorded so, and the delivery or job that planned it plans afresh. A run that reached
 * the dms only in part is finished with its own recorded values where the fields still hold what it read (a
 * person's change since wins). Notes are left to their intents (runs/intents/), which add each once. Each
 * document is read and written holding its lane (`hold`), as every other path writes it.
 */
export async function recoverJournal(deps: RecoveryDeps, only?: number): Promise<RecoveryReport> {
  const report: RecoveryReport = { applied: 0, notApplied: 0, completed: 0, left: 0 };
  const runs = only === undefined ? deps.journal.unfinished() : deps.journal.unfinished(deps.dmsKey, only);
  const held = <T>(doc: number, work: () => Promise<T>) => (deps.hold ? deps.hold(doc, work) : work());
  for (const run of runs) {
    if (run.entry.dms !== deps.dmsKey) {
      report.left++;
      continue;
    }
    report[await held(run.entry.doc, () => readAndReconcile(deps, run))]++;
  }
  if (report.applied + report.notApplied + report.completed > 0)
    deps.logger.info(
      `write journal: ${report.applied} interrupted write(s) were found applied, ${report.notApplied} not applied (planned afresh), ${report.completed} finished from the journal`,
    );
  return report;
}

async function readAndReconcile(
  deps: RecoveryDeps,
  run: JournalRun,
): Promise<'applied' | 'notApplied' | 'completed' | 'left'> {
  let doc: DmsDocument | null;
  try {
    doc = await deps.dms.getDocument(run.entry.doc);
  } catch (err) {
    if (!(err instanceof DmsNotFoundError)) {
      deps.logger.warn(
        `write journal: document ${run.entry.doc} could not be read to reconcile an interrupted write (${errorMessage(err)}); tried again at the next start`,
      );
      return 'left';
    }
    doc = null;
  }
  return reconcileRun(deps, run, doc);
}

async function reconcileRun(
  deps: RecoveryDeps,
  run: JournalRun,
  doc: DmsDocument | null,
): Promise<'applied' | 'notApplied' | 'completed'> {
  const handle = deps.journal.resume(run);
  const { read, writes } = run.entry;
  const found = writes.map((write, i) => {
    const known = run.outcomes[i];
    // A "not applied" an earlier start found out is looked for again: that start then sent the request itself,
    // and a kill may have cut off its answer too.
    if (known && (known.ok || !known.reconciled)) return known.ok;
    // Notes are their intents' to send: counted as done here. One the dms took is recorded with its id, which is
    // how its audit entry (logged without actor for a token) is known as the service's own.
    if (write.kind === 'note') {
      const note = appliedNote(write, doc, read);
      if (note !== null) handle.outcome(i, { ok: true, reconciled: true, note });
      return true;
    }
    const applied = isApplied(write, doc, read) ?? (doc !== null && doc.modified !== read.modified);
    handle.outcome(i, { ok: applied, reconciled: true, ...(applied ? {} : { error: 'not applied before the stop' }) });
    return applied;
  });
  if (found.every(Boolean)) {
    handle.end('applied', true);
    if (doc && unchangedBesides(doc, read, writes)) deps.ownState?.(doc, run);
    return 'applied';
  }
  if (!found.some(Boolean) || doc === null) {
    handle.end('not_applied', true);
    return 'notApplied';
  }
  for (const [i, write] of writes.entries()) {
    if (found[i]) continue;
    if (!untouchedSinceRead(write, doc, read)) {
      handle.outcome(i, { ok: false, reconciled: true, error: 'changed in the dms since; left as it is' });
      continue;
    }
    try {
      await send(deps.dms, run.entry.doc, write);
      found[i] = true;
      handle.outcome(i, { ok: true, reconciled: true });
    } catch (err) {
      handle.outcome(i, { ok: false, reconciled: true, error: errorMessage(err) });
    }
  }
  handle.end(found.every(Boolean) ? 'applied' : 'partial', true);
  return 'completed';
}

/** Sends one recorded request as the run would have. */
async function send(dms: RecoveryDeps['dms'], id: number, write: JournalWrite): Promise<void> {
  switch (write.kind) {
    case 'patch':
      await dms.updateDocument(id, write.patch);
      return;
    case 'tags':
      await dms.bulkEdit([id], 'modify_tags', { add_tags: write.add, remove_tags: write.remove });
      return;
    case 'custom_fields':
      await dms.bulkEdit([id], 'modify_custom_fields', {
        add_custom_fields: Object.fromEntries(write.set.map((f) => [f.field, f.value])),
        remove_custom_fields: write.remove,
      });
      return;
    case 'trash':
      await dms.trashDocument(id);
      return;
    case 'note':
      return;
  }
}
