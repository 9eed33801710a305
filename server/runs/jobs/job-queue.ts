import { ConflictError, NotFoundError, ServiceUnavailableError } from '../../app-errors.js';
import type { EventRecord, EventStore } from '../../history/event-store.js';
import { isFinished } from '../../history/event-store.js';
import type { Logger } from '../../log.js';
import { errorMessage } from '../../error-message.js';
import { eventLifecycle, NOUN, type EventWork, type StopReason } from '../event-lifecycle.js';

/** A unit of background work; it must end soon after its signal aborts. */
export type JobWork = (eventId: number, signal: AbortSignal) => Promise<void>;

export interface JobQueueOptions {
  /** Jobs waiting behind the running one; one more is refused with 503. */
  maxQueued: number;
  /** How long shutdown waits for the running job to notice it must stop. */
  stopGraceMs?: number;
  /** What the queued work is called in its events' messages (default: a job). */
  work?: EventWork;
}

export interface JobQueue {
  /** Persists a queued event and runs `work` after the jobs before it. */
  submit(event: EventRecord, work: JobWork): EventRecord;
  /** Cancels a queued or running job; a finished one is a 409. */
  cancel(eventId: number): EventRecord;
  /** Resolves when no job is queued or running. */
  idle(): Promise<void>;
  /** Shutdown: the running job stops as `interrupted`, queued ones are marked `interrupted` too. */
  stop(): Promise<void>;
}

/**
 * Runs background jobs one at a time, in order: two jobs writing the same documents at once would race,
 * and the dms client already spreads each job's requests over its connection pool.
 */
export function createJobQueue(events: EventStore, logger: Logger, options: JobQueueOptions): JobQueue {
  const life = eventLifecycle(events, options.work ?? 'job', () => new Date());
  const noun = NOUN[options.work ?? 'job'];
  const queue: Array<{ eventId: number; work: JobWork; controller: AbortController }> = [];
  let current: { eventId: number; controller: AbortController; done: Promise<void> } | null = null;
  let stopped = false;
  let idleWaiters: Array<() => void> = [];

  const next = () => {
    if (current || stopped) return;
    const job = queue.shift();
    if (!job) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const w of waiters) w();
      return;
    }
    const done = job
      .work(job.eventId, job.controller.signal)
      .catch((err: unknown) => {
        logger.error(`job ${job.eventId} crashed: ${errorMessage(err)}`);
        life.crashed(job.eventId, err);
      })
      .finally(() => {
        current = null;
        next();
      });
    current = { eventId: job.eventId, controller: job.controller, done };
  };

  return {
    submit(event, work) {
      if (stopped)
        throw new ServiceUnavailableError(`The service is shutting down; start the ${noun} again after restart.`, 5);
      if (queue.length >= options.maxQueued) {
        life.refused(event.event_id, `too many ${noun}s waiting.`);
        throw new ServiceUnavailableError(
          `${queue.length} ${noun}s are already waiting; try again when one has finished.`,
          30,
        );
      }
      queue.push({ eventId: event.event_id, work, controller: new AbortController() });
      setImmediate(next);
      return event;
    },
    cancel(eventId) {
      const record = events.get(eventId);
      if (!record) throw new NotFoundError(`There is no event ${eventId}.`);
      if (isFinished(record.status))
        throw new ConflictError(`Event ${eventId} has already ended (${record.status}); there is nothing to cancel.`);
      const waiting = queue.findIndex((j) => j.eventId === eventId);
      if (waiting >= 0) {
        queue.splice(waiting, 1);
        return life.notStarted(eventId, 'cancel') as EventRecord;
      }
      if (current?.eventId === eventId) {
        current.controller.abort('cancel' satisfies StopReason);
        // The job finishes the document in hand and then records `cancelled` itself.
        return events.get(eventId) as EventRecord;
      }
      throw new ConflictError(`Event ${eventId} is not a background job that can be cancelled.`);
    },
    idle() {
      if (!current && queue.length === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    async stop() {
      stopped = true;
      for (const job of queue.splice(0)) life.notStarted(job.eventId, 'shutdown');
      if (current) {
        const { eventId, controller, done } = current;
        controller.abort('shutdown' satisfies StopReason);
        // A job waiting on a slow dms call must not hold up shutdown for the call's whole timeout.
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          done,
          new Promise<void>((resolve) => (timer = setTimeout(resolve, options.stopGraceMs ?? 3000))),
        ]);
        clearTimeout(timer);
        const record = events.get(eventId);
        if (record && !isFinished(record.status)) life.stopped(eventId, 'shutdown');
      }
    },
  };
}
