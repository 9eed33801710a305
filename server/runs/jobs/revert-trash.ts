/**
 * Undo of `move_to_trash`: the document comes back from the dms's trash (where Paperless keeps it, fields and
 * all, until the trash is emptied) before its other fields are restored.
 */
import type { DmsClient } from '../../dms/types.js';
import type { Trace } from '../../engine/model.js';
import type { WrittenChange } from './revert-plan.js';
import { errorMessage } from '../../error-message.js';

export interface Untrashed {
  /** The job's other changes, still to restore. */
  written: WrittenChange;
  /** True when nothing else can be done now: a dry run cannot read a document that is still in the trash. */
  stop: boolean;
}

export async function untrash(
  dms: DmsClient,
  written: WrittenChange,
  trace: Trace,
  dryRun: boolean,
): Promise<Untrashed> {
  if (!('trash' in written.fields)) return { written, stop: false };
  const { trash: _trash, ...fields } = written.fields;
  const rest = { ...written, fields };
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
    return { written: rest, stop: true };
  }
  try {
    await dms.restoreFromTrash([written.document]);
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
    await dms.getDocument(written.document).catch(() => {
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
  return { written: rest, stop: false };
}
