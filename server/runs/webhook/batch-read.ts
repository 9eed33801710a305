import type { DmsClient, DmsDocument } from '../../dms/types.js';
import type { DocumentLane } from '../lane/document-lane.js';
import type { QueuedDelivery } from './webhook-queue.js';

/** Documents read in one list request (the client's `id__in` read; its chunk bound keeps the request line short). */
export const BATCH_READ = 100;
const BATCH = BATCH_READ;
/** Documents read ahead and not yet run, at most: a burst of thousands is read as its runs come near, not at once. */
const AHEAD = 2 * BATCH;

interface Early {
  arrivals: number;
  generation: number;
  read: Promise<DmsDocument | null>;
}

export interface BatchRead {
  /** Reads the next waiting deliveries' documents together, when two or more wait and no batch is being read. */
  readAhead(): void;
  /** Reads these deliveries' documents now, with one list request per batch, but for those already read ahead. */
  readNow(deliveries: readonly QueuedDelivery[]): Promise<void>;
  /**
   * The document as read ahead for this delivery, or null: none was read, the dms did not list it (a 404, not
   * committed yet), or it may be stale (another delivery merged in, or another path held the document's lane since).
   * Called with the lane held.
   */
  take(delivery: QueuedDelivery): Promise<DmsDocument | null>;
  /** The delivery's run ended: a read made for it that it never took (it ended before reading) is let go. */
  drop(delivery: QueuedDelivery): void;
}

/**
 * A burst of deliveries (a bulk edit in Paperless sends one per document) is read with one list request per
 * batch, as a job reads its pages, instead of one request per document; each document still runs alone in its
 * lane. A read is used only if nothing newer can exist: no delivery merged into the run after the read was sent
 * and no other holder of the lane ended since (the lane's generation).
 */
export function createBatchRead(
  dms: Pick<DmsClient, 'getDocuments'>,
  lane: Pick<DocumentLane, 'generation'>,
  next: (limit: number) => QueuedDelivery[],
): BatchRead {
  const early = new Map<QueuedDelivery, Early>();
  let reading = false;

  const read = (batch: readonly QueuedDelivery[]) => {
    const found = dms.getDocuments(batch.map((d) => d.document)).then(
      (docs) => new Map(docs.map((doc) => [doc.id, doc])),
      () => new Map<number, DmsDocument>(),
    );
    for (const d of batch)
      early.set(d, {
        arrivals: d.arrivals ?? 1,
        generation: lane.generation(d.document),
        read: found.then((docs) => docs.get(d.document) ?? null),
      });
    return found;
  };

  const readAhead = () => {
    if (reading || early.size >= AHEAD) return;
    const batch = next(BATCH + early.size)
      .filter((d) => !early.has(d))
      .slice(0, BATCH);
    if (batch.length < 2) return;
    reading = true;
    void read(batch).finally(() => {
      reading = false;
      readAhead();
    });
  };

  return {
    readAhead,
    async readNow(deliveries) {
      const unread = deliveries.filter((d) => !early.has(d));
      const reads: Array<Promise<unknown>> = deliveries.flatMap((d) => early.get(d)?.read ?? []);
      for (let i = 0; i < unread.length; i += BATCH) reads.push(read(unread.slice(i, i + BATCH)));
      await Promise.all(reads);
    },
    async take(delivery) {
      const entry = early.get(delivery);
      if (!entry) return null;
      early.delete(delivery);
      const document = await entry.read;
      const fresh =
        entry.arrivals === (delivery.arrivals ?? 1) && entry.generation === lane.generation(delivery.document);
      return fresh ? document : null;
    },
    drop: (delivery) => void early.delete(delivery),
  };
}
