import { errorMessage } from './error-message.js';

export interface CoalescedWriter {
  /** Writes now; resolves once a write that started after this call has finished. */
  now(): Promise<void>;
  /** Writes within the flush interval. */
  soon(): void;
  /** A last write; afterwards nothing is written (a late caller must not overwrite a restarted service's file). */
  close(): Promise<void>;
}

/**
 * Coalesces writes of one whole file: a burst of changes (a webhook flood, a job's writes) costs one write
 * in flight plus one after it, not one each.
 */
export function createCoalescedWriter(
  write: () => Promise<void>,
  onError: (message: string) => void,
  flushIntervalMs: number,
): CoalescedWriter {
  let timer: NodeJS.Timeout | undefined;
  let dirty = false;
  let writing: Promise<void> | null = null;
  let closed = false;
  const now = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (closed) return writing ?? Promise.resolve();
    dirty = true;
    writing ??= (async () => {
      while (dirty) {
        dirty = false;
        await write();
      }
    })()
      .catch((err: unknown) => onError(errorMessage(err)))
      .finally(() => (writing = null));
    return writing;
  };
  return {
    now,
    soon() {
      timer ??= setTimeout(() => void now(), flushIntervalMs);
    },
    async close() {
      await now();
      closed = true;
    },
  };
}
