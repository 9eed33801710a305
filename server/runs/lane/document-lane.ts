import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The per-document lane (docs/jobs-and-webhook.md#how-documents-arrive-and-the-guarantees). The rule it keeps:
 * every write to a document happens inside a hold of that document's lane, and holds of one document never
 * overlap; holders queue in arrival order per document. Webhook deliveries and manual runs also read the
 * document inside the hold. Jobs and catch-up read their pages outside it and take the hold only to write, so
 * their copy may be stale by then: a job rebases its plan on what the dms holds now (page-writes.ts), catch-up
 * compares the document's generation (each finished hold bumps it) and reads again when a hold ended since.
 * The write journal's reconciliation at start holds each document's lane too, so paths that wait for it do so
 * before they ask for a lane. Dry runs take no hold, except to reconcile a document (which may write).
 *
 * Holds are not re-entrant: asking for a lane the caller already holds would wait for itself forever, so it
 * throws at once instead (the holder's async context remembers what it holds).
 */
export interface DocumentLane {
  /** Runs `work` once no other holder of the document is in flight; resolves or rejects with it. */
  exclusive<T>(document: number, work: () => Promise<T>): Promise<T>;
  /**
   * The same for several documents at once (a job's bulk edit). Lanes are taken in id order, and a holder
   * of one lane never asks for a second, so two holders never wait on each other.
   */
  exclusiveAll<T>(documents: readonly number[], work: () => Promise<T>): Promise<T>;
  /**
   * `exclusive` for background work (the side-effect retrier) that may be started from inside a holder's context:
   * it waits for that hold to end instead of counting as the holder asking again.
   */
  exclusiveApart<T>(document: number, work: () => Promise<T>): Promise<T>;
  /** How many holds of the document have ended since the service started. */
  generation(document: number): number;
  /** Documents with a holder in flight or waiting (health, tests). */
  readonly busy: number;
}

/** What the current async context holds; `active` turns false when the hold ends (later callbacks keep the store). */
interface Held {
  documents: ReadonlySet<number>;
  active: boolean;
}

interface Lane {
  /** Resolves when the last holder queued so far has finished. */
  tail: Promise<void>;
  holders: number;
  generation: number;
}

export function createDocumentLane(): DocumentLane {
  const lanes = new Map<number, Lane>();
  const holding = new AsyncLocalStorage<readonly Held[]>();
  // Node 20 carries an enabled store into every async resource the process creates (5 % of an API test process's
  // CPU profile), so the store is enabled only while some hold is in flight; stores left on older resources
  // are marked inactive by then.
  let inFlight = 0;
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
    const outer = (holding.getStore() ?? []).filter((held) => held.active);
    const again = ids.filter((id) => outer.some((held) => held.documents.has(id)));
    if (again.length > 0)
      throw new Error(
        `document lane: a holder of document ${again.join(', ')} asked for it again; holds are not re-entrant and this would wait for itself forever`,
      );
    const releases: Array<() => void> = [];
    const held: Held = { documents: new Set(ids), active: true };
    let entered = false;
    try {
      for (const id of ids) releases.push(await acquire(id));
      inFlight++;
      entered = true;
      return await holding.run([...outer, held], work);
    } finally {
      held.active = false;
      if (entered && --inFlight === 0) holding.disable();
      for (const release of releases) release();
    }
  };

  return {
    exclusive: (document, work) => exclusiveAll([document], work),
    exclusiveApart: (document, work) => holding.exit(() => exclusiveAll([document], work)),
    exclusiveAll,
    generation: (document) => lanes.get(document)?.generation ?? generations.get(document) ?? 0,
    get busy() {
      return lanes.size;
    },
  };
}
