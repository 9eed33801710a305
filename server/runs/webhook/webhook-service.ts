import type { DmsClient, DmsDocument } from '../../dms/types.js';
import { DmsNotFoundError } from '../../dms/errors.js';
import { errorMessage } from '../../errors.js';
import type { EventStore } from '../../history/event-store.js';
import type { Logger } from '../../log.js';
import type { RecentWrites } from '../recent-writes.js';
import type { WebhookPayload, WebhookTrigger } from './parse-payload.js';
import { createWebhookQueue, type QueuedDelivery, type WebhookQueue } from './webhook-queue.js';

/** Counts one webhook run reports back for its event record. */
export interface WebhookRunCounts {
  matched: number;
  changed: number;
  errors: number;
}

export interface WebhookServiceOptions {
  capacity: number;
  concurrency: number;
  /** A delivery for a document the service wrote this recently is its own echo and is dropped. */
  echoWindowMs: number;
  /** After "added", how long a 404 or an empty content is waited out (Paperless may call before its commit). */
  arrivalWaitMs: number;
  /** First pause between re-fetches; doubles up to a second. */
  arrivalPollMs: number;
}

export const DEFAULT_WEBHOOK_OPTIONS: WebhookServiceOptions = {
  capacity: 200,
  concurrency: 2,
  echoWindowMs: 5000,
  arrivalWaitMs: 10_000,
  arrivalPollMs: 250,
};

export interface WebhookDeps {
  dms: DmsClient;
  events: EventStore;
  recentWrites: RecentWrites;
  logger: Logger;
  /** Read per delivery so a settings change applies without restart. */
  dryRun(): boolean;
  /** The one run pipeline: every loaded rule whose `on` matches, against the fetched document. */
  runner: {
    run(document: DmsDocument, trigger: WebhookTrigger, ctx: { eventId: number; dryRun: boolean }): Promise<WebhookRunCounts>;
    /** Records the failure in a trace per rule when the document could not be fetched. */
    fail(document: number, trigger: WebhookTrigger, ctx: { eventId: number; dryRun: boolean }, message: string): void;
  };
}

export type WebhookAnswer =
  | { ok: true; queued: true; document: number; event_id: number; duplicate: boolean }
  | { ok: true; queued: false; suppressed: true; document: number; event_id: null; reason: string };

export interface WebhookService {
  /** Answers at once; the run happens in the background. Throws 503 when the queue is full. */
  receive(payload: WebhookPayload): WebhookAnswer;
  readonly queue: WebhookQueue;
  stop(): Promise<void>;
}

export function createWebhookService(deps: WebhookDeps, options: WebhookServiceOptions = DEFAULT_WEBHOOK_OPTIONS): WebhookService {
  const { events, logger } = deps;
  const runDelivery = async (delivery: QueuedDelivery) => {
    const dryRun = events.get(delivery.event_id)?.dry_run ?? deps.dryRun();
    events.update(delivery.event_id, { status: 'running', started_at: new Date().toISOString(), total: 1 });
    const ctx = { eventId: delivery.event_id, dryRun };
    try {
      let document: DmsDocument;
      try {
        document = await fetchWhenReady(deps.dms, delivery.document, delivery.trigger, options);
      } catch (err) {
        const missing = err instanceof DmsNotFoundError;
        deps.runner.fail(delivery.document, delivery.trigger, ctx, missing ? `Document ${delivery.document} was not found in the dms.` : `The dms failed: ${errorMessage(err)}`);
        throw err;
      }
      const counts = await deps.runner.run(document, delivery.trigger, ctx);
      events.update(delivery.event_id, { ...counts, processed: 1, status: 'done', finished_at: new Date().toISOString() });
    } catch (err) {
      logger.warn(`webhook run for document ${delivery.document} failed: ${errorMessage(err)}`);
      events.update(delivery.event_id, { processed: 1, errors: 1, status: 'failed', finished_at: new Date().toISOString(), error: errorMessage(err) });
    }
  };
  const queue = createWebhookQueue({ capacity: options.capacity, concurrency: options.concurrency, retryAfterSeconds: 10 }, runDelivery);

  return {
    queue,
    receive({ document, trigger }) {
      // "added" is never an echo of our own write; anything else right after one is (DESIGN §6).
      if (trigger !== 'added' && deps.recentWrites.wasRecentlyWritten(document, options.echoWindowMs)) {
        logger.info(`webhook for document ${document} ignored: the service wrote it moments ago (its own echo)`);
        return { ok: true, queued: false, suppressed: true, document, event_id: null, reason: 'The service itself wrote this document moments ago; this is the echo of that write.' };
      }
      const result = queue.enqueue(document, trigger, () => events.create({ kind: 'webhook', rule_id: null, dry_run: deps.dryRun(), document }).event_id);
      return { ok: true, queued: true, document, event_id: result.delivery.event_id, duplicate: result.status === 'collapsed' };
    },
    async stop() {
      const left = await queue.stop();
      for (const d of left) {
        events.update(d.event_id, { status: 'interrupted', finished_at: new Date().toISOString(), error: 'The service stopped before this webhook run finished; Paperless will not resend it, run the rules for the document by hand.' });
      }
    },
  };
}

/**
 * Gets the document, waiting out the Document Added race: a 404 (not committed yet) or empty content
 * (OCR not stored yet) is re-fetched with growing pauses for at most `arrivalWaitMs`.
 */
async function fetchWhenReady(dms: DmsClient, id: number, trigger: WebhookTrigger, options: WebhookServiceOptions): Promise<DmsDocument> {
  const mayWait = trigger !== 'updated';
  const deadline = Date.now() + options.arrivalWaitMs;
  let pause = options.arrivalPollMs;
  for (;;) {
    let document: DmsDocument | undefined;
    try {
      document = await dms.getDocument(id);
    } catch (err) {
      if (!(err instanceof DmsNotFoundError) || !mayWait || Date.now() + pause > deadline) throw err;
    }
    if (document && (document.content.trim() !== '' || !mayWait || Date.now() + pause > deadline)) return document;
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, 1000);
  }
}
