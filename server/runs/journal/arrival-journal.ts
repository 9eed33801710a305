import type { DmsClient, DmsDocument } from '../../dms/types.js';
import type { Trace } from '../../engine/model.js';
import { errorMessage } from '../../error-message.js';
import type { Logger } from '../../log.js';
import type { DocumentStates, OwnWrite } from '../echo/document-states.js';
import type { DocumentLane } from '../lane/document-lane.js';
import { fieldsOf } from './journal-records.js';
import { tracesFromJournal } from './journal-traces.js';
import { leftAsWritten } from './reconcile.js';
import { recoverJournal, type RecoveryDeps } from './recover.js';
import type { JournalRun, WriteJournal } from './write-journal.js';

/** What arrivals (deliveries, restored after a restart) ask of the journal before they run a document. */
export interface ArrivalJournal {
  /** Resolves once the runs a kill cut short were reconciled at start (or left for later: the dms was away). */
  readonly ready: Promise<void>;
  /**
   * Reconciles the document's runs still unfinished (the dms was away at start), before it is run again; true when
   * there were any. The caller holds the document's lane.
   */
  reconcile(doc: number): Promise<boolean>;
  /** The same for a path that reads outside the lane (jobs, undo): takes the document's lane when there is work. */
  reconcileInLane(doc: number): Promise<boolean>;
  /**
   * The document is exactly as the service's newest journaled run left it, which the echo ledger does not know (its
   * file lost the state to a kill): the ledger learns it as the service's own, so its echo is not run again.
   */
  recognise(doc: DmsDocument): void;
  /** The run of this event that already reached the dms for this document: the arrival is done, not run again. */
  completed(event: number, doc: number): JournalRun | null;
  /** Rebuilds the run's traces from the journal when the history has none for its event and document. */
  ensureTraces(run: JournalRun): void;
}

export interface ArrivalJournalDeps {
  journal: WriteJournal;
  dms: Pick<DmsClient, 'getDocument' | 'updateDocument' | 'bulkEdit' | 'trashDocument'>;
  dmsKey: () => string;
  history: { hasEventTrace(event: number, document: number): boolean; append(t: Trace[]): void };
  ruleFile: (rule: string) => string;
  states: Pick<DocumentStates, 'isKnownState' | 'adopt'>;
  logger: Logger;
  /** Reconciliation holds each document's lane, so a path let in meanwhile never writes beside it. */
  lane: Pick<DocumentLane, 'exclusive'>;
  now?: () => Date;
}

/** What a run wrote, as the echo ledger keeps a write: what it read, and the fields it changed. */
const ownWriteOf = (run: JournalRun): OwnWrite => ({
  readAt: run.entry.read.modified,
  fields: [...new Set(run.entry.writes.flatMap(fieldsOf))],
});

export function createArrivalJournal(deps: ArrivalJournalDeps): ArrivalJournal {
  const ownState = (doc: DmsDocument, run: JournalRun) => {
    if (!deps.states.isKnownState(doc)) deps.states.adopt(doc, ownWriteOf(run));
  };
  // At start the pass takes each document's lane (`hold`); a document reconciled later is in its caller's hold.
  const recover = (only?: number, hold?: RecoveryDeps['hold']) =>
    recoverJournal(
      { journal: deps.journal, dms: deps.dms, dmsKey: deps.dmsKey(), logger: deps.logger, ownState, hold },
      only,
    ).catch((err: unknown) => {
      deps.logger.warn(`write journal: interrupted writes could not be reconciled: ${errorMessage(err)}`);
    });
  const ready = recover(undefined, (doc, work) => deps.lane.exclusive(doc, work)).then(() => undefined);
  const unfinished = (doc: number) => deps.journal.unfinished(deps.dmsKey(), doc).length > 0;
  const reconcile = async (doc: number) => {
    if (!unfinished(doc)) return false;
    await recover(doc);
    return true;
  };
  return {
    ready,
    reconcile,
    reconcileInLane: async (doc) => unfinished(doc) && deps.lane.exclusive(doc, () => reconcile(doc)),
    recognise(doc) {
      if (deps.states.isKnownState(doc)) return;
      const [newest] = deps.journal.runsOf(deps.dmsKey(), doc.id);
      if (!newest?.end || newest.end.status === 'not_applied') return;
      // A run left the document as it read it plus what went through. A note not known to be added (a kill came
      // first) is its intent's to add, and the intent journals a run of its own when it does.
      const applied = newest.entry.writes.filter((write, i) => {
        const outcome = newest.outcomes[i];
        return write.kind === 'note' ? outcome?.ok === true && outcome.note !== undefined : outcome?.ok !== false;
      });
      if (leftAsWritten(doc, newest.entry.read, applied)) ownState(doc, newest);
    },
    completed: (event, doc) => deps.journal.appliedFor(event, deps.dmsKey(), doc),
    ensureTraces(run) {
      const { event, doc } = run.entry;
      if (event === null || deps.history.hasEventTrace(event, doc)) return;
      deps.history.append(tracesFromJournal(run, deps.ruleFile, (deps.now ?? (() => new Date()))()));
    },
  };
}
