/**
 * Undo of `move_to_trash`: the document comes back from the dms's trash (where Paperless keeps it, fields and
 * all, until the trash is emptied) before its other fields are restored.
 */
import type { DmsClient } from '../../dms/types.js';
import { DmsNotFoundError } from '../../dms/dms-errors.js';
import type { Trace } from '../../engine/model.js';
import { errorMessage } from '../../error-message.js';

/**
 * True when nothing else can be done now: a dry run cannot read a document that is still in the trash. Throws
 * DmsNotFoundError when the document is neither in the trash nor back (the trash was emptied since).
 */
export async function untrash(
  dms: DmsClient,
  document: number,
  trace: Pick<Trace, 'changes' | 'conditions' | 'actions'>,
  dryRun: boolean,
): Promise<boolean> {
  trace.changes.trash = { from: true, to: false };
  const step = { path: 'revert/trash', action: 'move_to_trash' as const };
  if (dryRun) {
    trace.conditions.push({
      path: 'revert/trash',
      description: 'the job moved the document to the trash: restore it',
      field: 'trash',
      expected: true,
      result: true,
    });
    trace.actions.push({
      ...step,
      status: 'planned',
      detail: 'would restore the document from the trash; its other fields are checked once it is back',
    });
    return true;
  }
  try {
    await dms.restoreFromTrash([document]);
    trace.conditions.push({
      path: 'revert/trash',
      description: 'the job moved the document to the trash: restore it',
      field: 'trash',
      expected: true,
      result: true,
    });
    trace.actions.push({ ...step, status: 'applied', detail: 'restored from the trash' });
  } catch (err) {
    // Restored by a person already (Paperless: "not yet been deleted"): nothing to do, the document is there.
    await dms.getDocument(document).catch((gone: unknown) => {
      if (gone instanceof DmsNotFoundError)
        throw new DmsNotFoundError(`it is no longer in the trash (emptied since): ${errorMessage(err)}`, gone.request);
      throw new Error(`it could not be restored from the trash: ${errorMessage(err)}`);
    });
    delete trace.changes.trash;
    trace.conditions.push({
      path: 'revert/trash',
      description: 'the document is no longer in the trash (restored since): leave it',
      field: 'trash',
      expected: true,
      actual: false,
      result: false,
    });
  }
  return false;
}
