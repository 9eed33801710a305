import { ServiceUnavailableError } from '../../errors.js';
import type { WebhookTrigger } from './parse-payload.js';

export interface QueuedDelivery {
  document: number;
  trigger: WebhookTrigger;
  event_id: number;
}

export interface WebhookQueueOptions {
  /** Deliveries waiting (not running); one more is refused with 503. */
  capacity: number;
  /** Documents processed at the same time. */
  concurrency: number;
  /** Seconds a refused sender is asked to wait. */
  retryAfterSeconds: number;
  /** How long `stop` waits for running deliveries (default 5 s). */
  stopGraceMs?: number;
}

export type EnqueueResult =
  | { status: 'queued'; delivery: QueuedDelivery }
  /** The document was already waiting: this delivery joined that run. */
  | { status: 'collapsed'; delivery: QueuedDelivery };

export interface WebhookQueue {
  /** Queues a run for the document, or joins one already waiting; throws 503 when full. */
  enqueue(document: number, trigger: WebhookTrigger, createEvent: () => number): EnqueueResult;
  readonly waiting: number;
  readonly running: number;
  /** Resolves when nothing is waiting or running (tests, shutdown). */
  idle(): Promise<void>;
  /** Stops taking work; returns the deliveries that never started or did not finish within the grace time. */
  stop(): Promise<QueuedDelivery[]>;
}

/** `added` and `updated` together mean both kinds of rules must run: the same as no trigger. */
function mergeTriggers(a: WebhookTrigger, b: WebhookTrigger): WebhookTrigger {
  return a === b ? a : 'unknown';
}

/**
 * A bounded FIFO of per-document webhook runs. Paperless retries and duplicates deliveries, so a
 * document already waiting is never queued twice; a document whose run has started may be queued once
 * more (the person may have changed it after the run read it).
 */
export function createWebhookQueue(options: WebhookQueueOptions, run: (delivery: QueuedDelivery) => Promise<void>): WebhookQueue {
  const waiting = new Map<number, QueuedDelivery>();
  const running = new Map<number, QueuedDelivery>();
  let active = 0;
  let stopped = false;
  let idleWaiters: Array<() => void> = [];

  const checkIdle = () => {
    if (waiting.size === 0 && active === 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const w of waiters) w();
    }
  };

  const pump = () => {
    if (stopped) return;
    while (active < options.concurrency) {
      // Skip documents whose run is still going: the follow-up waits for it (keeps per-document order).
      const next = [...waiting.values()].find((d) => !running.has(d.document));
      if (!next) break;
      waiting.delete(next.document);
      running.set(next.document, next);
      active++;
      void run(next)
        .catch(() => undefined)
        .finally(() => {
          active--;
          running.delete(next.document);
          pump();
          checkIdle();
        });
    }
    checkIdle();
  };

  return {
    enqueue(document, trigger, createEvent) {
      if (stopped) throw new ServiceUnavailableError('The service is shutting down; deliver the webhook again later.', options.retryAfterSeconds);
      const existing = waiting.get(document);
      if (existing) {
        existing.trigger = mergeTriggers(existing.trigger, trigger);
        return { status: 'collapsed', delivery: { ...existing } };
      }
      if (waiting.size >= options.capacity) {
        throw new ServiceUnavailableError(
          `The webhook queue is full (${options.capacity} documents waiting); Paperless will retry.`,
          options.retryAfterSeconds,
        );
      }
      const delivery: QueuedDelivery = { document, trigger, event_id: createEvent() };
      waiting.set(document, delivery);
      // Start work after answering: the HTTP response must not wait for anything.
      setImmediate(pump);
      return { status: 'queued', delivery: { ...delivery } };
    },
    get waiting() {
      return waiting.size;
    },
    get running() {
      return active;
    },
    idle() {
      if (waiting.size === 0 && active === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    async stop() {
      stopped = true;
      const left = [...waiting.values()];
      waiting.clear();
      if (active > 0) {
        // A delivery may be waiting out a late document or a slow dms; shutdown does not wait for it forever.
        let timer: NodeJS.Timeout | undefined;
        const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, options.stopGraceMs ?? 5000)));
        await Promise.race([new Promise<void>((resolve) => idleWaiters.push(resolve)), grace]);
        clearTimeout(timer);
      }
      checkIdle();
      return [...left, ...running.values()];
    },
  };
}
