/**
 * The webhook echo guard (DESIGN §6, Paperless reference §7.7): every PATCH fires "Document Updated",
 * whose webhook arrives tens of milliseconds later. Runs mark the documents they write; the webhook
 * drops deliveries for a document written within the last few seconds.
 */
export interface RecentWrites {
  /** Records that the service is writing `documentId` now. */
  mark(documentId: number): void;
  /** True when the service wrote `documentId` within the last `withinMs` milliseconds. */
  wasRecentlyWritten(documentId: number, withinMs: number): boolean;
}

/** Entries older than this are forgotten, so the map stays small however many documents are written. */
const FORGET_AFTER_MS = 60_000;

export function createRecentWrites(now: () => number = Date.now): RecentWrites {
  const writes = new Map<number, number>();
  let lastSweep = now();

  const sweep = (at: number) => {
    if (at - lastSweep < FORGET_AFTER_MS) return;
    lastSweep = at;
    for (const [id, when] of writes) if (at - when > FORGET_AFTER_MS) writes.delete(id);
  };

  return {
    mark(documentId) {
      const at = now();
      writes.set(documentId, at);
      sweep(at);
    },
    wasRecentlyWritten(documentId, withinMs) {
      const when = writes.get(documentId);
      return when !== undefined && now() - when <= withinMs;
    },
  };
}
