import type { DmsClient, DmsDocument } from '../../dms/types.js';
import { errorMessage } from '../../error-message.js';
import type { Logger } from '../../log.js';
import { changedBesides, type WriteExpectation } from './document-state.js';
import type { StateRecords } from './document-states.js';
import { settleMirrors } from './mirror-settlement.js';
import type { HeldWrites } from './write-barrier.js';

const READ_BACK_BATCH = 100;

export interface WrittenStates {
  /** The document as the service's write left it (the dms's answer, or read back). */
  recordWritten(doc: DmsDocument, expected: WriteExpectation | undefined): void;
  /** A write the dms did not answer with the document (a bulk edit): read back in batches, then recorded. */
  readBack(documentId: number, expected: WriteExpectation | undefined): void;
}

/**
 * What the service's writes left documents as: the state after a write is its own unless someone else changed
 * another field meanwhile (then: not known). Writes answered without the document are read back, a hundred per
 * request; the barrier holds each until its state is recorded.
 */
export function createWrittenStates(deps: {
  dms: Pick<DmsClient, 'getDocuments'>;
  states: StateRecords;
  barrier: HeldWrites;
  logger: Logger;
}): WrittenStates {
  const waiting = new Set<number>();
  const expectations = new Map<number, WriteExpectation>();

  const recordWritten = (doc: DmsDocument, expected: WriteExpectation | undefined) => {
    const foreign = expected ? changedBesides(expected, doc) : [];
    if (foreign.length === 0) {
      deps.states.record(
        doc,
        true,
        expected ? { readAt: expected.before.modified, fields: [...expected.fields] } : undefined,
      );
      settleMirrors(deps, doc, expected?.before);
      return;
    }
    deps.states.forget(doc.id);
    deps.logger.info(
      `document ${doc.id}: ${foreign.join(', ')} changed in the dms while the service wrote it; the next arrival runs the rules`,
    );
  };

  const flush = async () => {
    const ids = [...waiting].slice(0, READ_BACK_BATCH);
    for (const id of ids) waiting.delete(id);
    if (waiting.size > 0) setImmediate(() => void flush());
    const seen = new Set<number>();
    try {
      for (const doc of await deps.dms.getDocuments(ids)) {
        seen.add(doc.id);
        recordWritten(doc, expectations.get(doc.id));
        expectations.delete(doc.id);
      }
    } catch (err) {
      // Without the state the next echo runs the rules once more; idempotent plans make that a no-op.
      deps.logger.warn(`could not read back ${ids.length} written document(s): ${errorMessage(err)}`);
    }
    for (const id of ids) {
      // Gone (deleted) or unreadable: no state to compare with, so the next delivery runs the rules.
      if (!seen.has(id)) deps.states.forget(id);
      expectations.delete(id);
      deps.barrier.letGo(id);
    }
  };

  return {
    recordWritten,
    readBack(id, expected) {
      if (expected) expectations.set(id, expected);
      else expectations.delete(id);
      if (waiting.size === 0) setImmediate(() => void flush());
      // Already waiting: one read-back serves both writes' holds.
      if (waiting.has(id)) return deps.barrier.letGo(id);
      waiting.add(id);
    },
  };
}
