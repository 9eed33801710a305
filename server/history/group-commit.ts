import { errorMessage } from '../error-message.js';
import type { JournalIo } from '../jsonl-file.js';

export type { JournalIo };

/** Text taken from the owner for one write; `undo` marks it unwritten again when the write fails. */
export interface Batch {
  text: string;
  undo(): void;
}

export interface JournalSource {
  /** The changes not yet written, as lines; null when there are none. */
  changes(): Batch | null;
  /** Every live record, for compaction (replaces the file and everything appended to it). */
  snapshot(): Batch;
}

export interface GroupCommitOptions {
  /** Appended bytes that trigger a compaction, at least; also twice the last snapshot's size. */
  compactAfterBytes: number;
  /** Unforced changes are written within this time. */
  flushIntervalMs: number;
  onError(message: string): void;
}

export interface GroupCommit {
  /** Writes every change made so far; resolves once they are on disk, rejects when the write failed. */
  commit(): Promise<void>;
  /** Writes within the flush interval (progress counters). */
  soon(): void;
  /** Rewrites the whole file with the live records (at open, and after a failed append). */
  compact(): Promise<void>;
  /** A last write; afterwards nothing is written (a late caller must not write into a restarted service's file). */
  close(): Promise<void>;
}

/**
 * Group commit for an append-only journal: every change made while a write is in flight, or within the
 * same turn of the event loop, goes out in the next single write + fsync. Nobody waits for more than the
 * write in flight plus their own, and a burst of N changes costs one write, not N.
 */
export function createGroupCommit(io: JournalIo, source: JournalSource, options: GroupCommitOptions): GroupCommit {
  type Waiter = { resolve(): void; reject(err: Error): void };
  let waiters: Waiter[] = [];
  let running: Promise<void> | null = null;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let appended = 0;
  let snapshotBytes = 0;
  // A failed append may leave half a line at the end: the next write must replace the file, not append to it.
  let mustCompact = false;

  const writeOnce = async (): Promise<void> => {
    const compacting = mustCompact || appended > Math.max(options.compactAfterBytes, 2 * snapshotBytes);
    const batch = compacting ? source.snapshot() : source.changes();
    if (!batch) return;
    try {
      if (compacting) {
        await io.replace(batch.text);
        snapshotBytes = Buffer.byteLength(batch.text);
        appended = 0;
        mustCompact = false;
      } else {
        await io.append(batch.text);
        appended += Buffer.byteLength(batch.text);
      }
    } catch (err) {
      batch.undo();
      if (!compacting) mustCompact = true;
      throw err;
    }
  };

  const drain = async () => {
    // Yield once so the changes made in this turn of the event loop share the first write.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (waiters.length > 0) {
      const batch = waiters;
      waiters = [];
      try {
        await writeOnce();
        for (const w of batch) w.resolve();
      } catch (err) {
        const message = errorMessage(err);
        options.onError(message);
        for (const w of batch) w.reject(new Error(message));
      }
    }
    // In the same synchronous step as the loop's last check: a commit after this starts a new drain.
    running = null;
  };

  const commit = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (closed) return Promise.resolve();
    const done = new Promise<void>((resolve, reject) => waiters.push({ resolve, reject }));
    running ??= drain();
    return done;
  };

  return {
    commit,
    soon() {
      if (closed) return;
      timer ??= setTimeout(() => void commit().catch(() => undefined), options.flushIntervalMs);
    },
    compact() {
      mustCompact = true;
      return commit();
    },
    async close() {
      await commit().catch(() => undefined);
      closed = true;
    },
  };
}
