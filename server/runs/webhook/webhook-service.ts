import type { DmsClient, DmsDocument } from '../../dms/types.js';
import { DmsNotFoundError } from '../../dms/dms-errors.js';
import type { EventStore } from '../../history/event-store.js';
import type { Logger } from '../../log.js';
import type { Arrive, ArrivalRead } from '../arrival/arrive.js';
import { eventLifecycle, retryNote } from '../event-lifecycle.js';
import type { DocumentLane } from '../lane/document-lane.js';
import type { WebhookPayload } from './parse-payload.js';
import {
  createWebhookQueue,
  mergeTriggers,
  recordedTriggers,
  sameTriggers,
  triggersOfRecord,
  type DeliveryResult,
  type QueuedDelivery,
  type WebhookQueue,
} from './webhook-queue.js';
import { BATCH_READ, createBatchRead } from './batch-read.js';
import type { DeliveryWrites } from './delivery-writes.js';
import type { TraceStore } from '../../history/trace-store.js';

export interface WebhookServiceOptions {
  /** Deliveries run at the same time: a number, or read at each start. */
  concurrency: number | (() => number);
  /** After "added", how long a 404 or an empty content is waited out (Paperless may call before its commit). */
  arrivalWaitMs: number;
  /** First pause between re-fetches; doubles up to a second. */
  arrivalPollMs: number;
}

export const DEFAULT_WEBHOOK_OPTIONS: WebhookServiceOptions = {
  concurrency: 2,
  arrivalWaitMs: 10_000,
  arrivalPollMs: 250,
};

export interface WebhookDeps {
  dms: Pick<DmsClient, 'getDocument' | 'getDocuments'>;
  events: EventStore;
  /** The per-document lane: a document read ahead is used only when no other holder ended since. */
  lane: Pick<DocumentLane, 'generation'>;
  /** The front door every automatic arrival runs through: echo, handled, retry and give-up policy. */
  arrive: Arrive;
  logger: Logger;
  /** Read per delivery so a settings change applies without restart. */
  dryRun(): boolean;
  /** Called whenever the dms reached the service (a webhook arrived). */
  heard?(): void;
  /** Deliveries waiting together run as a batch: read together, their identical writes as grouped bulk edits. */
  batches?: DeliveryWrites;
  /** The trace store: written out before a delivery's end is recorded, so no event is `done` without its traces. */
  traces?: Pick<TraceStore, 'flush'>;
}

export type WebhookAnswer = { ok: true; queued: true; document: number; event_id: number; duplicate: boolean };

export interface WebhookService {
  /** Persists the delivery, then answers; the run happens in the background. Never refused for want of room. */
  receive(payload: WebhookPayload): Promise<WebhookAnswer>;
  readonly queue: WebhookQueue;
  /** Deliveries recognised as the service's own echo (or a repeat of a handled addition) since start. */
  readonly echoesSkipped: number;
  stop(): Promise<void>;
}

/**
 * A delivery's later status changes (running, done, failed, queued for a retry) ride the next group commit (the
 * next delivery's, or within the store's flush interval) instead of an fsync of their own. Only the acceptance must
 * be on disk before the 202; after a crash a delivery whose end was not written yet is looked up in the write journal:
 * done if its writes reached the dms, run again if they did not (the intents keep notifications from going twice). Their own fsyncs
 * made an arriving delivery wait behind a run's write as well as its own (docs/decisions.md, "The events journal is the durable webhook queue").
 */
const AFTER_ACCEPTANCE = { soon: true } as const;

/**
 * The webhook: accepts deliveries into a durable queue (202 at once) and feeds each to the front door
 * (`arrival/arrive.ts`) with what Paperless said; what the front door decides is written to the delivery's event.
 */
export function createWebhookService(
  deps: WebhookDeps,
  options: WebhookServiceOptions = DEFAULT_WEBHOOK_OPTIONS,
): WebhookService {
  const { events, logger } = deps;
  let echoesSkipped = 0;
  const life = eventLifecycle(events, 'webhook', () => new Date(), AFTER_ACCEPTANCE);

  const runDelivery = async (delivery: QueuedDelivery): Promise<DeliveryResult> => {
    const id = delivery.event_id;
    const dryRun = events.get(id)?.dry_run ?? deps.dryRun();
    const outcome = await deps
      .arrive({
        document: delivery.document,
        from: 'webhook',
        eventId: id,
        dryRun,
        facts: { said: delivery.triggers },
        // A copy the batch read before the journal finished a cut-short write of the document is stale.
        read: async (reconciled) => {
          deps.batches?.inLane(id);
          return fetchOnce(deps.dms, delivery, options, reconciled ? null : await batch.take(delivery));
        },
        starting: () => life.running(id, { total: 1 }),
      })
      .finally(() => batch.drop(delivery));
    // Traces batch for a moment; the end rides the next group commit, which a delivery accepted meanwhile makes at
    // once. Written out first, a kill between the two cannot leave the event ended without its traces.
    if (outcome.kind !== 'wait' && outcome.kind !== 'skipped' && outcome.kind !== 'retry')
      await deps.traces?.flush().catch(() => undefined);
    switch (outcome.kind) {
      case 'wait':
        return { retryInMs: outcome.inMs };
      case 'skipped':
        // Exactly as the service's own write left it (its echo, however late), or an addition handled already.
        echoesSkipped++;
        events.discard(id);
        logger.info(
          `webhook for document ${delivery.document} skipped: it is exactly as the service last left it (its own echo)`,
        );
        return;
      case 'done':
        life.done(id, { ...outcome.counts, processed: 1 });
        return;
      case 'retry': {
        const at = new Date(Date.now() + outcome.inMs);
        logger.warn(retryNote(outcome.message, outcome.attempts, at));
        life.retrying(id, outcome.message, outcome.attempts, at, outcome.counts);
        return { retryInMs: outcome.inMs };
      }
      case 'failed':
        logger.warn(`webhook run for document ${delivery.document} failed: ${outcome.message}`);
        life.failed(id, outcome.message, { ...outcome.counts, processed: 1 });
        return;
      case 'given-up':
        life.failed(id, outcome.message, { processed: 1, errors: 1 });
        return;
      case 'gone':
        life.failed(id, `Document ${delivery.document} is gone from the dms.`, { processed: 1, errors: 1 });
        return;
    }
  };
  const batch = createBatchRead(deps.dms, deps.lane, (limit) => queue.runnable(limit));
  const queue = createWebhookQueue(
    {
      concurrency: options.concurrency,
      retryAfterSeconds: 10,
      // Batches read their documents as they start; reading ahead in small lists as a burst trickles in costs more.
      onPump: deps.batches ? undefined : () => batch.readAhead(),
      batch: deps.batches && {
        max: BATCH_READ,
        open(deliveries) {
          const round = (deps.batches as DeliveryWrites).round(deliveries.map((d) => d.event_id));
          return {
            ready: batch.readNow(deliveries),
            finished: (d) => round.leave(d.event_id),
            close: () => round.close(),
          };
        },
      },
      onSuperseded(older, newer) {
        const note = `merged into webhook event ${newer.event_id}: a newer delivery for document ${older.document} runs it instead of this retry`;
        logger.info(`webhook event ${older.event_id} ${note}`);
        life.merged(older.event_id, note);
        const recorded = recordedTriggers(newer.triggers);
        if (!sameTriggers(events.get(newer.event_id), recorded)) life.progress(newer.event_id, recorded);
      },
    },
    runDelivery,
  );

  // The durable queue: deliveries accepted before a stop or crash run now, once each.
  const restored = events.unfinishedDeliveries();
  const restoredFor = new Map<number, number>();
  for (const e of restored) {
    if (e.document === null) continue;
    const first = restoredFor.get(e.document);
    if (first !== undefined) {
      // A follow-up queued behind a run the crash cut short: one run of the document now covers both.
      events.discard(e.event_id);
      const merged = recordedTriggers(mergeTriggers(triggersOfRecord(events.get(first) ?? {}), triggersOfRecord(e)));
      if (!sameTriggers(events.get(first), merged)) events.update(first, merged);
    } else {
      if (e.status === 'running') life.requeued(e.event_id);
      restoredFor.set(e.document, e.event_id);
    }
    queue.restore({ document: e.document, triggers: triggersOfRecord(e), event_id: e.event_id });
  }
  if (restored.length > 0)
    logger.info(`${restored.length} webhook delivery(ies) accepted before the last stop are queued again`);

  return {
    queue,
    get echoesSkipped() {
      return echoesSkipped;
    },
    async receive({ document, trigger }) {
      deps.heard?.();
      const result = queue.enqueue(
        document,
        trigger,
        () => events.create({ kind: 'webhook', rule_id: null, dry_run: deps.dryRun(), document, trigger }).event_id,
      );
      const event = events.get(result.delivery.event_id);
      const recorded = recordedTriggers(result.delivery.triggers);
      if (result.status === 'collapsed' && event && !sameTriggers(event, recorded))
        events.update(event.event_id, recorded);
      // Persisted before the 202: Paperless will not resend an accepted delivery.
      await events.flush();
      return {
        ok: true,
        queued: true,
        document,
        event_id: result.delivery.event_id,
        duplicate: result.status === 'collapsed',
      };
    },
    async stop() {
      const left = await queue.stop();
      // They stay queued in the events file and run after the next start.
      if (left.length > 0) logger.info(`${left.length} webhook delivery(ies) stay queued for the next start`);
    },
  };
}

/**
 * One fetch of the document (the front door holds its lane), waiting out the Document Added race: a 404 (not committed yet) or empty
 * content (OCR not stored yet) after an `added` (or unknown) delivery asks to be tried again later,
 * for at most `arrivalWaitMs` from the first try.
 */
async function fetchOnce(
  dms: Pick<DmsClient, 'getDocument'>,
  delivery: QueuedDelivery,
  options: WebhookServiceOptions,
  readAhead: DmsDocument | null,
): Promise<ArrivalRead> {
  const mayWait = delivery.triggers.some((t) => t !== 'updated');
  const waited = Date.now() - (delivery.firstTriedAt ?? Date.now());
  const attempts = Math.max(0, Math.floor(Math.log2(1 + waited / options.arrivalPollMs)));
  const pause = Math.min(options.arrivalPollMs * 2 ** attempts, 1000);
  const canWait = mayWait && waited + pause <= options.arrivalWaitMs;
  let document: DmsDocument;
  try {
    document = readAhead ?? (await dms.getDocument(delivery.document));
  } catch (err) {
    if (err instanceof DmsNotFoundError) {
      if (canWait) return { retryInMs: pause };
      return {
        missing: mayWait
          ? `Document ${delivery.document} was not found in the dms (still answered 404 after ${Math.round(waited / 1000)} s).`
          : `Document ${delivery.document} was not found in the dms (404): an updated delivery for a document the dms does not have ends here.`,
      };
    }
    // The dms failed the read (down, restarting, a 5xx): the front door tries again with backoff.
    throw err;
  }
  if (document.content.trim() === '' && canWait) return { retryInMs: pause };
  return { document };
}
