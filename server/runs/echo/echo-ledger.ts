import type { DmsClient, DmsDocument } from '../../dms/types.js';
import type { Logger } from '../../log.js';
import { createDocumentStates, type DocumentStates } from './document-states.js';
import { openDocumentTable } from './document-table.js';
import type { EchoWrites } from './echo-writes.js';
import { createFailureAttempts, type FailureAttempts } from './failure-attempts.js';
import { createLoopBreaker, type LoopBreaker } from './loop-breaker.js';
import { createWriteBarrier, type WriteBarrier } from './write-barrier.js';
import { createWrittenStates } from './written-states.js';

export type { DocumentFailure } from './failure-attempts.js';
export type { OwnWrite } from './document-states.js';

export interface EchoLedgerOptions {
  /** Where the records survive restarts (JSON, rewritten atomically). */
  file: string;
  dms: Pick<DmsClient, 'getDocuments'>;
  logger: Logger;
  /** Loop breaker: at most this many writes to one document within `loopWindowMs`. */
  loopMaxWrites: number;
  loopWindowMs: number;
  /** Documents remembered; the least recently touched are forgotten first. */
  capacity?: number;
  flushIntervalMs?: number;
  now?: () => number;
  /**
   * Whether the write journal holds a run of the document's `added` arrival (its `added` time): the ledger's own
   * record of it is saved a moment later, and a kill in between must not make the arrival new again.
   */
  addedInJournal?: (doc: DmsDocument) => boolean;
}

/**
 * The echo records, built once and handed out by the unit each caller uses: the write side (`EchoWrites`, every
 * write path), the states (`DocumentStates`: echo and handled), the failures (`FailureAttempts`: retries and
 * health), the loop breaker and the barrier for writes in flight. One object implements them all, kept in one
 * file (`document-table.ts`); each unit lives in its own module.
 */
export interface EchoLedger extends EchoWrites, WriteBarrier, DocumentStates, FailureAttempts, LoopBreaker {
  /**
   * The service now talks to another dms, where the same ids are other documents: every state is forgotten (the
   * write journal, kept per dms, still recognises the service's own writes there).
   */
  forgetAll(): void;
  flush(): Promise<void>;
  close(): Promise<void>;
}

export function openEchoLedger(options: EchoLedgerOptions): EchoLedger {
  const now = options.now ?? Date.now;
  const table = openDocumentTable(options);
  const barrier = createWriteBarrier();
  const states = createDocumentStates(table, (id) => barrier.inFlight(id), options.addedInJournal);
  const failures = createFailureAttempts(table, (id) => states.forget(id), now);
  const loop = createLoopBreaker(table, { maxWrites: options.loopMaxWrites, windowMs: options.loopWindowMs, now });
  const written = createWrittenStates({ dms: options.dms, states, barrier, logger: options.logger });
  return {
    ...states,
    ...failures,
    ...loop,
    mark(id) {
      barrier.hold(id);
      loop.counted(id);
    },
    settle(id, doc, expected) {
      if (!doc) return written.readBack(id, expected);
      written.recordWritten(doc, expected);
      barrier.letGo(id);
    },
    refused(id) {
      // Nothing reached the dms: no write to count against the loop breaker, no state to read back.
      loop.uncounted(id);
      barrier.letGo(id);
    },
    settled: (id, maxWaitMs) => barrier.settled(id, maxWaitMs),
    handled(doc, wrote, added) {
      failures.succeeded(doc.id);
      states.handled(doc, wrote, added);
    },
    forgetAll() {
      table.clear();
      void table.persist();
    },
    flush: () => table.persist(),
    close: () => table.close(),
  };
}
