import type { DmsClient, DmsDocument } from '../../dms/types.js';
import { DmsNotFoundError } from '../../dms/dms-errors.js';
import type { EventStore } from '../../history/event-store.js';
import type { Logger } from '../../log.js';
import { isServiceEcho, type Attribution } from '../echo/attribution.js';
import type { AutomaticRunner } from '../arrival/automatic-runner.js';
import type { EchoLedger } from '../echo/echo-ledger.js';
import type { DocumentLane } from '../lane/document-lane.js';
import { failedRunRetry, type FailedRunRetry } from '../arrival/failed-run-retry.js';
import type { WebhookPayload } from './parse-payload.js';
import {
  createWebhookQueue,
  recordedTrigger,
  type DeliveryResult,
  type QueuedDelivery,
  type WebhookQueue,
} from './webhook-queue.js';
import { errorMessage } from '../../error-message.js';
import { createBatchRead } from './batch-read.js';
import type { ArrivalJournal } from '../journal/arrival-journal.js';
import type { TraceStore } from '../../history/trace-store.js';

export interface WebhookServiceOptions {
  /** Deliveries run at the same time: a number, or read at each start. */
  concurrency: number | (() => number);
  /** After "added", how long a 404 or an empty content is waited out (Paperless may call before its commit). */
  arrivalWaitMs: number;
  /** First pause between re-fetches; doubles up to a second. */
  arrivalPollMs: number;
  /** When a refused write is tried again, and how often before the delivery fails. */
  retry: FailedRunRetry;
}

export const DEFAULT_WEBHOOK_OPTIONS: WebhookServiceOptions = {
  concurrency: 2,
  arrivalWaitMs: 10_000,
  arrivalPollMs: 250,
  retry: failedRunRetry(),
};

export interface WebhookDeps {
  dms: DmsClient;
  events: EventStore;
  echoes: EchoLedger;
  /** The per-document lane every path that writes a document holds (docs/jobs-and-webhook.md#how-documents-arrive-and-the-guarantees). */
  lane: DocumentLane;
  /** Who changed a document the service wrote: Paperless's audit log, or the state alone. */
  attribution: Attribution;
  logger: Logger;
  /** Read per delivery so a settings change applies without restart. */
  dryRun(): boolean;
  /** The one run pipeline: every loaded rule whose `on` matches, against the fetched document. */
  runner: AutomaticRunner;
  /** Called whenever the dms reached the service (a webhook arrived). */
  heard?(): void;
  /** What the service already wrote: a delivery whose run reached the dms before a kill is done, not run again. */
  journal?: ArrivalJournal;
  /** The trace store: written out before a delivery's end is recorded, so no event is `done` without its traces. */
  traces?: Pick<TraceStore, 'flush'>;
}

export type WebhookAnswer = { ok: true; queued: true; document: number; event_id: number; duplicate: boolean };

export interface WebhookService {
  /** Persists the delivery, then answers; the run happens in the background. Never refused for want of room. */
  receive(payload: WebhookPayload): Promise<WebhookAnswer>;
  readonly queue: WebhookQueue;
  /** Deliveries recognised as the service's own echo since start. */
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

export function createWebhookService(
  deps: WebhookDeps,
  options: WebhookServiceOptions = DEFAULT_WEBHOOK_OPTIONS,
): WebhookService {
  const { events, logger, echoes } = deps;
  let echoesSkipped = 0;
  const progress = (eventId: number, patch: Parameters<typeof events.update>[1]) =>
    events.update(eventId, patch, AFTER_ACCEPTANCE);
  // Traces batch for a moment; the end rides the next group commit, which a delivery accepted meanwhile makes at
  // once. Written out first, a kill between the two cannot leave the event ended without its traces.
  const end = async (eventId: number, patch: Parameters<typeof events.update>[1]) => {
    await deps.traces?.flush().catch(() => undefined);
    progress(eventId, patch);
  };

  const runHeld = async (delivery: QueuedDelivery): Promise<DeliveryResult> => {
    const dryRun = events.get(delivery.event_id)?.dry_run ?? deps.dryRun();
    const ctx = { eventId: delivery.event_id, dryRun, source: 'webhook' as const };
    try {
      // A write of this very document still in flight (a job's read-back): its state is known only once it settles.
      await echoes.settled(delivery.document);
      if (deps.journal) {
        await deps.journal.ready;
        await deps.journal.reconcile(delivery.document);
        const earlier = deps.journal.completed(delivery.event_id, delivery.document);
        if (earlier) {
          // Its writes reached the dms before the stop: recorded (with its traces), never sent again. A run that
          // reached it only in part is failed, with what did not go through, not taken as done.
          deps.journal.ensureTraces(earlier);
          const missed = earlier.outcomes.filter((o) => o?.ok === false).map((o) => o?.error);
          await end(delivery.event_id, {
            processed: 1,
            matched: earlier.entry.rules.length > 0 ? 1 : 0,
            changed: 1,
            errors: missed.length > 0 ? 1 : 0,
            status: missed.length > 0 ? 'failed' : 'done',
            finished_at: new Date().toISOString(),
            error:
              missed.length > 0
                ? `Its writes reached the dms only in part before the service stopped: ${missed.join('; ')}`
                : null,
          });
          return;
        }
      }
      const fetched = await fetchOnce(deps.dms, delivery, options, await batch.take(delivery));
      if ('retryInMs' in fetched) return fetched;
      const document = fetched.document;
      deps.journal?.recognise(document);
      // A document added is a new arrival whoever wrote it first (a job, another delivery): never an echo; only a
      // repeat of an `added` arrival the service handled (Paperless's retry, catch-up's copy) is dropped.
      const repeat = delivery.triggers.includes('added')
        ? echoes.addedHandled(document) && echoes.isKnownState(document)
        : await isServiceEcho(echoes, deps.attribution, document);
      if (repeat) {
        // Exactly as the service's own write left it: its echo, however late.
        echoesSkipped++;
        events.discard(delivery.event_id);
        logger.info(
          `webhook for document ${document.id} skipped: it is exactly as the service last left it (its own echo)`,
        );
        return;
      }
      progress(delivery.event_id, { status: 'running', started_at: new Date().toISOString(), total: 1 });
      const { failure, ...counts } = await deps.runner.run(document, delivery.triggers, ctx);
      await echoes.settled(document.id);
      if (failure === null) {
        // Applied in full (or dry): this state is handled; catch-up need not run it again.
        echoes.handled(
          document,
          !dryRun && counts.changed > 0,
          delivery.triggers.some((t) => t !== 'updated'),
        );
        await end(delivery.event_id, {
          ...counts,
          processed: 1,
          status: 'done',
          finished_at: new Date().toISOString(),
          error: null,
        });
        return;
      }
      // Not applied: the document is not handled. Tried again with backoff, then left failed and visible.
      const attempts = echoes.failed(document, failure);
      const retryInMs = options.retry.delayMs(attempts);
      if (retryInMs === null) {
        await end(delivery.event_id, {
          ...counts,
          processed: 1,
          status: 'failed',
          finished_at: new Date().toISOString(),
          error: `${failure} (tried ${attempts} times; run it by hand once the cause is fixed)`,
        });
        return;
      }
      const at = new Date(Date.now() + retryInMs).toISOString();
      logger.warn(`${failure}; tried ${attempts} time(s), trying again at ${at}`);
      progress(delivery.event_id, {
        ...counts,
        status: 'queued',
        error: `${failure}; tried ${attempts} time(s), trying again at ${at}`,
      });
      return { retryInMs };
    } catch (err) {
      if (err instanceof FetchFailed && err.dmsFailed) {
        // The dms failed the read (down, restarting, a 5xx): tried again with backoff like a refused write.
        const attempts = echoes.failedRead(delivery.document, err.message);
        const retryInMs = options.retry.delayMs(attempts);
        if (retryInMs !== null) {
          const at = new Date(Date.now() + retryInMs).toISOString();
          logger.warn(`${err.message}; tried ${attempts} time(s), trying again at ${at}`);
          progress(delivery.event_id, {
            status: 'queued',
            error: `${err.message}; tried ${attempts} time(s), trying again at ${at}`,
          });
          return { retryInMs };
        }
        err.message = `${err.message} (tried ${attempts} times; run it by hand once the cause is fixed)`;
      }
      if (!(err instanceof FetchFailed))
        logger.warn(`webhook run for document ${delivery.document} failed: ${errorMessage(err)}`);
      else deps.runner.fail(delivery.document, delivery.triggers, ctx, err.message);
      await end(delivery.event_id, {
        processed: 1,
        errors: 1,
        status: 'failed',
        finished_at: new Date().toISOString(),
        error: errorMessage(err),
      });
    }
  };
  const batch = createBatchRead(deps.dms, deps.lane, (limit) => queue.runnable(limit));
  // One run of a document at a time, whichever path brought it (the lane is shared with catch-up, jobs, manual runs).
  const runDelivery = (delivery: QueuedDelivery) => deps.lane.exclusive(delivery.document, () => runHeld(delivery));
  const queue = createWebhookQueue(
    {
      concurrency: options.concurrency,
      retryAfterSeconds: 10,
      onPump: () => batch.readAhead(),
      onSuperseded(older, newer) {
        const note = `merged into webhook event ${newer.event_id}: a newer delivery for document ${older.document} runs it instead of this retry`;
        logger.info(`webhook event ${older.event_id} ${note}`);
        progress(older.event_id, { status: 'done', finished_at: new Date().toISOString(), error: `Merged: ${note}.` });
        const recorded = recordedTrigger(newer.triggers);
        if (events.get(newer.event_id)?.trigger !== recorded) progress(newer.event_id, { trigger: recorded });
      },
    },
    runDelivery,
  );

  // The durable queue: deliveries accepted before a stop or crash run now, once each.
  const restored = events.unfinishedDeliveries();
  const restoredFor = new Set<number>();
  for (const e of restored) {
    if (e.document === null) continue;
    if (restoredFor.has(e.document)) {
      // A follow-up queued behind a run the crash cut short: one run of the document now covers both.
      events.discard(e.event_id);
    } else if (e.status === 'running') events.update(e.event_id, { status: 'queued', started_at: null });
    restoredFor.add(e.document);
    queue.restore({ document: e.document, triggers: [e.trigger ?? 'unknown'], event_id: e.event_id });
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
      const recorded = recordedTrigger(result.delivery.triggers);
      if (result.status === 'collapsed' && event && event.trigger !== recorded)
        events.update(event.event_id, { trigger: recorded });
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

class FetchFailed extends Error {
  /** True when the dms failed the read (not a 404): worth trying again later. */
  constructor(
    message: string,
    readonly dmsFailed = false,
  ) {
    super(message);
  }
}

/**
 * One fetch of the document, waiting out the Document Added race: a 404 (not committed yet) or empty
 * content (OCR not stored yet) after an `added` (or unknown) delivery asks to be tried again later,
 * for at most `arrivalWaitMs` from the first try.
 */
async function fetchOnce(
  dms: DmsClient,
  delivery: QueuedDelivery,
  options: WebhookServiceOptions,
  readAhead: DmsDocument | null,
): Promise<{ document: DmsDocument } | { retryInMs: number }> {
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
      throw new FetchFailed(
        mayWait
          ? `Document ${delivery.document} was not found in the dms (still answered 404 after ${Math.round(waited / 1000)} s).`
          : `Document ${delivery.document} was not found in the dms (404): an updated delivery for a document the dms does not have ends here.`,
      );
    }
    throw new FetchFailed(`The dms failed to read document ${delivery.document}: ${errorMessage(err)}`, true);
  }
  if (document.content.trim() === '' && canWait) return { retryInMs: pause };
  return { document };
}
