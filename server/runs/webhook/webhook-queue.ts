import { ServiceUnavailableError } from '../../app-errors.js';
import type { WebhookTrigger } from './parse-payload.js';

export interface QueuedDelivery {
  document: number;
  /** Every trigger merged into this run (an `added` and an `updated` delivery: both, each run as itself). */
  triggers: WebhookTrigger[];
  event_id: number;
  /** When the first attempt began (ms): the document-added wait is counted from there. */
  firstTriedAt?: number;
  /** Deliveries merged into this one so far (1 when none): a read made before the last one may be stale. */
  arrivals?: number;
}

export interface WebhookQueueOptions {
  /** Documents processed at the same time: a number, or read at each start (it follows what the dms serves). */
  concurrency: number | (() => number);
  /** Seconds a sender refused during shutdown is asked to wait. */
  retryAfterSeconds: number;
  /** How long `stop` waits for running deliveries (default 5 s). */
  stopGraceMs?: number;
  /**
   * A run that asked to be tried again found a newer delivery for its document waiting: that one runs the
   * document (with both deliveries' triggers), and the older delivery's event is closed here.
   */
  onSuperseded?(older: QueuedDelivery, newer: QueuedDelivery): void;
  /** After each round of starting runs: the service may read the next waiting documents together. */
  onPump?(): void;
  /**
   * Several waiting deliveries start together in one run slot (a burst): `open` is told which, and each one's run
   * waits for `ready` (their documents read together); `finished` after each one's run, `close` after all.
   */
  batch?: { max: number; open(deliveries: readonly QueuedDelivery[]): DeliveryBatch };
}

/** What the service does around a batch of deliveries started together. */
export interface DeliveryBatch {
  ready: Promise<void>;
  finished(delivery: QueuedDelivery): void;
  close(): void;
}

export type EnqueueResult =
  | { status: 'queued'; delivery: QueuedDelivery }
  /** The document was already waiting: this delivery joined that run. */
  | { status: 'collapsed'; delivery: QueuedDelivery };

/** A run may ask to be tried again later (the document is not in the dms yet) without holding a slot. */
// eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- most runs return nothing; only a wait returns a value
export type DeliveryResult = void | { retryInMs: number };

export interface WebhookQueue {
  /** Queues a run for the document, or joins one already waiting; throws 503 only while stopping. */
  enqueue(document: number, trigger: WebhookTrigger, createEvent: () => number): EnqueueResult;
  /** Puts back a delivery accepted before a restart (never refused: it was already answered 202). */
  restore(delivery: QueuedDelivery): void;
  /** The next deliveries to run, in order (at most `limit`): not deferred, their document not running. */
  runnable(limit: number): QueuedDelivery[];
  /** True when a delivery for the document waits (not yet running): a run that will read it fresh. */
  has(document: number): boolean;
  readonly waiting: number;
  /** Deliveries running (a batch counts each of its deliveries). */
  readonly running: number;
  /** Resolves when nothing is waiting or running (tests, shutdown). */
  idle(): Promise<void>;
  /** Stops taking work; returns the deliveries that never started or did not finish within the grace time. */
  stop(): Promise<QueuedDelivery[]>;
  /** Starts no delivery until `resume` (deliveries are still accepted and wait): a dms switch in progress. */
  pause(): void;
  resume(): void;
}

/** The triggers of two merged deliveries: both, each once. */
export function mergeTriggers(a: readonly WebhookTrigger[], b: readonly WebhookTrigger[]): WebhookTrigger[] {
  return [...new Set([...a, ...b])].sort();
}

/**
 * What an event record keeps of a delivery's triggers: the trigger itself, or `unknown` for several with each of
 * them in `triggers` (a restart runs the merged delivery as each of them again).
 */
export function recordedTriggers(triggers: readonly WebhookTrigger[]): {
  trigger: WebhookTrigger;
  triggers: WebhookTrigger[] | null;
} {
  return triggers.length === 1
    ? { trigger: triggers[0], triggers: null }
    : { trigger: 'unknown', triggers: [...triggers] };
}

/** Whether an event record already says these triggers. */
export const sameTriggers = (
  e: { trigger?: WebhookTrigger | null; triggers?: WebhookTrigger[] | null } | undefined,
  recorded: ReturnType<typeof recordedTriggers>,
) => e?.trigger === recorded.trigger && (e.triggers ?? null)?.join() === recorded.triggers?.join();

/** The triggers an event record says its delivery had (records before `triggers` existed: `trigger` alone). */
export const triggersOfRecord = (e: { trigger?: WebhookTrigger | null; triggers?: WebhookTrigger[] | null }) =>
  e.triggers?.length ? e.triggers : [e.trigger ?? 'unknown'];

/**
 * A FIFO of per-document webhook runs, bounded by the archive, not by a burst: a document already waiting is
 * never queued twice (Paperless retries and duplicates deliveries, a bulk edit sends one per document), so a
 * delivery is never refused for want of room; a document whose run has started may be queued once
 * more (the person may have changed it after the run read it). A run waiting for a document that is not
 * in the dms yet goes back to the queue with a due time instead of holding one of the few run slots.
 */
export function createWebhookQueue(
  options: WebhookQueueOptions,
  run: (delivery: QueuedDelivery) => Promise<DeliveryResult>,
): WebhookQueue {
  const waiting = new Map<number, QueuedDelivery>();
  const dueAt = new Map<number, number>();
  const running = new Map<number, QueuedDelivery>();
  let active = 0;
  let stopped = false;
  let paused = false;
  let wakeTimer: NodeJS.Timeout | undefined;
  let idleWaiters: Array<() => void> = [];

  const checkIdle = () => {
    if (waiting.size === 0 && active === 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const w of waiters) w();
    }
  };

  const wakeAt = (at: number) => {
    if (wakeTimer) clearTimeout(wakeTimer);
    wakeTimer = setTimeout(() => ((wakeTimer = undefined), pump()), Math.max(0, at - Date.now()));
  };

  const settle = (next: QueuedDelivery, result: DeliveryResult) => {
    if (!result || stopped) return;
    const newer = waiting.get(next.document);
    if (newer) {
      newer.triggers = mergeTriggers(newer.triggers, next.triggers);
      options.onSuperseded?.(next, newer);
    } else {
      waiting.set(next.document, next);
      dueAt.set(next.document, Date.now() + result.retryInMs);
    }
  };

  const pump = () => {
    if (stopped || paused) return;
    const now = Date.now();
    const limit = typeof options.concurrency === 'function' ? options.concurrency() : options.concurrency;
    const max = options.batch?.max ?? 1;
    while (active < limit) {
      // Skip documents whose run is still going (keeps per-document order) and deferred ones not yet due.
      const batch: QueuedDelivery[] = [];
      for (const d of waiting.values()) {
        if (batch.length >= max) break;
        if (!running.has(d.document) && (dueAt.get(d.document) ?? 0) <= now) batch.push(d);
      }
      if (batch.length === 0) break;
      for (const next of batch) {
        waiting.delete(next.document);
        dueAt.delete(next.document);
        running.set(next.document, next);
        next.firstTriedAt ??= now;
      }
      active++;
      const together = batch.length > 1 ? options.batch?.open(batch) : undefined;
      void Promise.all(
        batch.map(async (next) => {
          await together?.ready.catch(() => undefined);
          try {
            settle(next, await run(next).catch(() => undefined));
          } finally {
            running.delete(next.document);
            together?.finished(next);
          }
        }),
      ).finally(() => {
        together?.close();
        active--;
        pump();
        checkIdle();
      });
    }
    if (dueAt.size > 0) wakeAt(Math.min(...dueAt.values()));
    options.onPump?.();
    checkIdle();
  };

  return {
    enqueue(document, trigger, createEvent) {
      if (stopped)
        throw new ServiceUnavailableError(
          'The service is shutting down; deliver the webhook again later.',
          options.retryAfterSeconds,
        );
      const existing = waiting.get(document);
      if (existing) {
        existing.triggers = mergeTriggers(existing.triggers, [trigger]);
        existing.arrivals = (existing.arrivals ?? 1) + 1;
        return { status: 'collapsed', delivery: { ...existing, triggers: [...existing.triggers] } };
      }
      const delivery: QueuedDelivery = { document, triggers: [trigger], event_id: createEvent() };
      waiting.set(document, delivery);
      // Start work after answering: the HTTP response must not wait for anything.
      setImmediate(pump);
      return { status: 'queued', delivery: { ...delivery, triggers: [...delivery.triggers] } };
    },
    restore(delivery) {
      const existing = waiting.get(delivery.document);
      if (existing) {
        existing.triggers = mergeTriggers(existing.triggers, delivery.triggers);
        existing.arrivals = (existing.arrivals ?? 1) + 1;
      } else waiting.set(delivery.document, { ...delivery, triggers: [...delivery.triggers] });
      setImmediate(pump);
    },
    runnable(limit) {
      const now = Date.now();
      const out: QueuedDelivery[] = [];
      for (const d of waiting.values()) {
        if (out.length >= limit) break;
        if (!running.has(d.document) && (dueAt.get(d.document) ?? 0) <= now) out.push(d);
      }
      return out;
    },
    has: (document) => waiting.has(document),
    get waiting() {
      return waiting.size;
    },
    get running() {
      return running.size;
    },
    idle() {
      if (waiting.size === 0 && active === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      setImmediate(pump);
    },
    async stop() {
      stopped = true;
      if (wakeTimer) clearTimeout(wakeTimer);
      const left = [...waiting.values()];
      waiting.clear();
      dueAt.clear();
      if (active > 0) {
        // A delivery may be waiting on a slow dms; shutdown does not wait for it forever.
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
