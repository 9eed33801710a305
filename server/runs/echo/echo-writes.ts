import type { DmsDocument } from '../../dms/types.js';
import type { WriteExpectation } from './document-state.js';

/**
 * The write side of the echo ledger (`echo-ledger.ts`), what every write path tells it (docs/jobs-and-webhook.md): Paperless
 * answers each PATCH and bulk edit with a "Document Updated" webhook that may arrive seconds or minutes later
 * (Celery). The ledger recognises that echo by the document's state, so the write path only says which
 * document it writes and, when it knows it, what the dms answered. Wherever it is passed it is called `echoes`.
 */
export interface EchoWrites {
  /** Before a write: the service is about to write `documentId` (an echo processed meanwhile waits for `settle`). */
  mark(documentId: number): void;
  /**
   * After the write, whether it succeeded or not: the document as the dms returned it, or nothing
   * (a bulk edit, a failed write) and the guard reads the document back itself. With `expected`, a state that
   * differs in any other field than the written ones is someone else's change, not the service's own.
   */
  settle(documentId: number, written?: DmsDocument, expected?: WriteExpectation): void;
  /**
   * Instead of `settle`: the write marked last reached nothing (the dms refused it), so it does not count
   * against the loop breaker and there is no state to record.
   */
  refused(documentId: number): void;
}
