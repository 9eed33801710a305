import type { DmsDocument } from '../../dms/types.js';
import type { EchoLedger } from '../echo-ledger.js';
import type { ReadValues } from '../journal/journal-records.js';
import type { WriteJournal } from '../journal/write-journal.js';

/**
 * For a document exactly as the service's own write left it: what that write read (the write journal's record of
 * the run whose read the echo ledger names), i.e. the state of the change the write came from. Null for any other
 * state, or when the journal no longer holds that run. The retrier's note runs are not a change of their own.
 */
export function changeOrigin(
  echoes: Pick<EchoLedger, 'ownWrite'>,
  journal: Pick<WriteJournal, 'runsOf'>,
  dmsKey: () => string,
): (doc: DmsDocument) => ReadValues | null {
  return (doc) => {
    const write = echoes.ownWrite(doc);
    if (!write) return null;
    const runs = journal
      .runsOf(dmsKey(), doc.id)
      .filter((run) => run.entry.source !== 'intent' && run.end?.status !== 'not_applied');
    // Newest first: the newest run that read the state the ledger's write was planned on.
    return runs.find((run) => run.entry.read.modified === write.readAt)?.entry.read ?? null;
  };
}
