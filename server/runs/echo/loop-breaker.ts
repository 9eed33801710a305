import type { DocumentTable, Entry } from './document-table.js';

/** Stops automatic runs from writing a document something else keeps answering (another automation, a workflow). */
export interface LoopBreaker {
  /** Null when the service may write the document; otherwise the loop breaker's reason. */
  holdReason(documentId: number): string | null;
  /** A person asked for a run of this document: the loop breaker lets it be written again. */
  release(documentId: number): void;
}

/** The loop breaker as the write side counts: a write sent, or one the dms refused (it reached nothing). */
export interface WriteCounter extends LoopBreaker {
  counted(documentId: number): void;
  uncounted(documentId: number): void;
}

/** At most `maxWrites` writes of one document within `windowMs`, counted in the echo records' table. */
export function createLoopBreaker(
  table: DocumentTable,
  options: { maxWrites: number; windowMs: number; now: () => number },
): WriteCounter {
  const recent = (entry: Entry | undefined): number[] => {
    if (!entry) return [];
    const since = options.now() - options.windowMs;
    entry.writes = entry.writes.filter((t) => t > since);
    return entry.writes;
  };
  return {
    counted: (id) => void recent(table.touch(id)).push(options.now()),
    uncounted(id) {
      const entry = table.get(id);
      if (entry && entry.writes.length > 0) {
        entry.writes.pop();
        table.changed(id);
      }
    },
    holdReason(id) {
      const writes = recent(table.get(id));
      if (writes.length < options.maxWrites) return null;
      const minutes = Math.round(options.windowMs / 60_000);
      return (
        `Loop breaker: the service wrote document ${id} ${writes.length} times within ${minutes} minutes (limit ${options.maxWrites}, ` +
        `SVC_LOOP_MAX_WRITES); it is not written again until a person runs the rules for it by hand or ${minutes} minutes pass without a write.`
      );
    },
    release(id) {
      const entry = table.get(id);
      if (entry && entry.writes.length > 0) {
        entry.writes = [];
        table.changed(id);
      }
    },
  };
}
