/** Writes of a document still in flight: an arrival that reads the document waits until they settle. */
export interface WriteBarrier {
  /** Resolves once no write to the document is in flight (or after `maxWaitMs`). */
  settled(documentId: number, maxWaitMs?: number): Promise<void>;
}

/** The barrier as the write side holds it: a write (or a read-back of it) in flight is held, then let go. */
export interface HeldWrites extends WriteBarrier {
  hold(documentId: number): void;
  /** One hold of the document ends; waiters wake when the last one does. */
  letGo(documentId: number): void;
  inFlight(documentId: number): boolean;
}

export function createWriteBarrier(): HeldWrites {
  const pending = new Map<number, number>();
  const waiters = new Map<number, Array<() => void>>();
  return {
    hold(id) {
      pending.set(id, (pending.get(id) ?? 0) + 1);
    },
    letGo(id) {
      const left = (pending.get(id) ?? 1) - 1;
      if (left > 0) return void pending.set(id, left);
      pending.delete(id);
      for (const wake of waiters.get(id) ?? []) wake();
      waiters.delete(id);
    },
    inFlight: (id) => pending.has(id),
    settled(id, maxWaitMs = 30_000) {
      if (!pending.has(id)) return Promise.resolve();
      return new Promise((resolve) => {
        const timeout = setTimeout(resolve, maxWaitMs);
        const list = waiters.get(id) ?? [];
        list.push(() => (clearTimeout(timeout), resolve()));
        waiters.set(id, list);
      });
    },
  };
}
