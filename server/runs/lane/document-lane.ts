/**
 * The per-document lane (docs/jobs-and-webhook.md#how-documents-arrive-and-the-guarantees): every path that reads a document to write it (webhook deliveries,
 * catch-up and polling, jobs and schedules, undo, manual runs) holds the document's lane while it does,
 * so at most one run of a document is in flight and two paths never read the same document concurrently
 * and both write. Holders queue in arrival order per document.
 *
 * Each finished hold bumps the document's generation: a path that read the document before waiting (a
 * catch-up page, a job page) compares generations to know whether its copy is still the latest.
 */
export interface DocumentLane {
  /** Runs `work` once no other holder of the document is in flight; resolves or rejects with it. */
  exclusive<T>(document: number, work: () => Promise<T>): Promise<T>;
  /**
   * The same for several documents at once (a job's bulk edit). Lanes are taken in id order, and a holder
   * of one lane never asks for a second, so two holders never wait on each other.
   */
  exclusiveAll<T>(documents: readonly number[], work: () => Promise<T>): Promise<T>;
  /** How many holds of the document have ended since the service started. */
  generation(document: number): number;
  /** Documents with a holder in flight or waiting (health, tests). */
  readonly busy: number;
}

interface Lane {
  /** Resolves when the last holder queued so far has finished. */
  tail: Promise<void>;
  holders: number;
  generation: number;
}

export function createDocumentLane(): DocumentLane {
  const lanes = new Map<number, Lane>();
  // Generations outlive their lanes (a lane is dropped when idle), bounded like any per-document memory.
  const generations = new Map<number, number>();
  const GENERATIONS_KEPT = 50_000;

  const acquire = (document: number): Promise<() => void> => {
    const lane = lanes.get(document) ?? {
      tail: Promise.resolve(),
      holders: 0,
      generation: generations.get(document) ?? 0,
    };
    lanes.set(document, lane);
    lane.holders++;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const before = lane.tail;
    lane.tail = before.then(() => released);
    return before.then(() => () => {
      lane.generation++;
      generations.delete(document);
      generations.set(document, lane.generation);
      if (generations.size > GENERATIONS_KEPT) generations.delete(generations.keys().next().value as number);
      if (--lane.holders === 0) lanes.delete(document);
      release();
    });
  };

  const exclusiveAll = async <T>(documents: readonly number[], work: () => Promise<T>): Promise<T> => {
    const ids = [...new Set(documents)].sort((a, b) => a - b);
    const releases: Array<() => void> = [];
    try {
      for (const id of ids) releases.push(await acquire(id));
      return await work();
    } finally {
      for (const release of releases) release();
    }
  };

  return {
    exclusive: (document, work) => exclusiveAll([document], work),
    exclusiveAll,
    generation: (document) => lanes.get(document)?.generation ?? generations.get(document) ?? 0,
    get busy() {
      return lanes.size;
    },
  };
}
