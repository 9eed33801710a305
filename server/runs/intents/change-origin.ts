import type { DmsDocument } from '../../dms/types.js';
import type { DocumentStates } from '../echo/document-states.js';
import type { ReadValues } from '../journal/journal-records.js';
import type { WriteJournal } from '../journal/write-journal.js';

/**
 * For a document exactly as the service's own write left it: what that write read (the write journal's record of
 * the run whose read the echo ledger names), i.e. the state of the change the write came from. Null for any other
 * state, or when the journal no longer holds that run. The retrier's note runs are not a change of their own.
 */
export function changeOrigin(
  states: Pick<DocumentStates, 'isOwnWrite' | 'ownWrite'>,
  journal: Pick<WriteJournal, 'runsOf'>,
  dmsKey: () => string,
): (doc: DmsDocument) => ReadValues | null {
  return (doc) => {
    if (!states.isOwnWrite(doc)) return null;
    const write = states.ownWrite(doc);
    const runs = journal
      .runsOf(dmsKey(), doc.id)
      .filter((run) => run.entry.source !== 'intent' && run.end?.status !== 'not_applied');
    // Newest first: the newest run that read the state the ledger's write was planned on (a bulk edit's write is
    // recorded without it: then the newest run, the one that left the document as it is).
    const run = write ? runs.find((r) => r.entry.read.modified === write.readAt) : runs[0];
    return run?.entry.read ?? null;
  };
}
