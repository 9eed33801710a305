import type { EventRecord, EventStore } from '../history/event-store.js';
import { errorMessage } from '../error-message.js';

/** Why work stopped early: a person cancelled it, or the service is shutting down. */
export type StopReason = 'cancel' | 'shutdown';

/** The kinds of work whose events go through a lifecycle. */
export type EventWork = 'job' | 'revert' | 'catchup' | 'webhook' | 'suggestion';

type Patch = Parameters<EventStore['update']>[1];

// What an interrupted event tells the person, per kind of work: what happens next.
const INTERRUPTED: Record<EventWork, string> = {
  job: 'The service stopped while this job ran; run it again.',
  revert: 'The service stopped while this revert ran; run it again.',
  catchup: 'The service stopped during the catch-up; the next start continues it.',
  webhook: 'The service stopped while this delivery ran; it runs again at the next start.',
  suggestion: 'The service stopped while this suggestion ran; ask for it again.',
};
/** What each kind of work is called in its events' messages. */
export const NOUN: Record<EventWork, string> = {
  job: 'job',
  revert: 'revert',
  catchup: 'catch-up',
  webhook: 'delivery',
  suggestion: 'suggestion',
};

/**
 * Every event's status transitions and their messages, in one place: queued → running → done, or failed,
 * cancelled, interrupted; a webhook delivery may go back to queued (a retry with its time) or end merged into a
 * newer delivery. Jobs, reverts, catch-ups, deliveries and suggestions all record their ends through it, so the
 * same end reads the same everywhere. Each returns the updated record.
 */
export interface EventLifecycle {
  running(id: number, patch?: Patch): EventRecord | undefined;
  /** Back to waiting: a delivery a stop cut short runs again at this start. */
  requeued(id: number): EventRecord | undefined;
  /** Counts and progress only, no status change. */
  progress(id: number, patch: Patch): EventRecord | undefined;
  done(id: number, patch?: Patch): EventRecord | undefined;
  /** Failed with a message a person can act on. */
  failed(id: number, error: string, patch?: Patch): EventRecord | undefined;
  /** The work stopped on an error of its own: "The job stopped: …". */
  crashed(id: number, err: unknown, patch?: Patch): EventRecord | undefined;
  /** Stopped early while it ran: cancelled on request, or interrupted by a shutdown. */
  stopped(id: number, reason: StopReason, patch?: Patch): EventRecord | undefined;
  /** Stopped before it started: cancelled while waiting, or the service stopped first. */
  notStarted(id: number, reason: StopReason): EventRecord | undefined;
  /** Refused before it started (too many waiting). */
  refused(id: number, why: string): EventRecord | undefined;
  /** Back in the queue: the next try's time and the attempts so far are in its error. */
  retrying(id: number, failure: string, attempts: number, at: Date, patch?: Patch): EventRecord | undefined;
  /** Closed because a newer event does its work. */
  merged(id: number, note: string): EventRecord | undefined;
}

/** "…; tried 2 time(s), trying again at …": what a delivery waiting for its retry says, in its event and the log. */
export const retryNote = (failure: string, attempts: number, at: Date): string =>
  `${failure}; tried ${attempts} time(s), trying again at ${at.toISOString()}`;

/**
 * The lifecycle of one kind of work's events. `soon`: status changes ride the store's next group commit instead
 * of an fsync of their own (webhook deliveries: only their acceptance must be on disk at once).
 */
export function eventLifecycle(
  events: Pick<EventStore, 'update'>,
  work: EventWork,
  now: () => Date,
  options: { soon?: boolean } = {},
): EventLifecycle {
  const write = (id: number, patch: Patch) => events.update(id, patch, options.soon ? { soon: true } : undefined);
  const end = (id: number, patch: Patch) => write(id, { ...patch, finished_at: now().toISOString() });
  return {
    running: (id, patch) => write(id, { ...patch, status: 'running', started_at: now().toISOString() }),
    requeued: (id) => write(id, { status: 'queued', started_at: null }),
    progress: (id, patch) => write(id, patch),
    done: (id, patch) => end(id, { error: null, ...patch, status: 'done' }),
    failed: (id, error, patch) => end(id, { ...patch, status: 'failed', error }),
    crashed: (id, err, patch) =>
      end(id, { ...patch, status: 'failed', error: `The ${NOUN[work]} stopped: ${errorMessage(err)}` }),
    stopped: (id, reason, patch) =>
      end(id, {
        ...patch,
        status: reason === 'cancel' ? 'cancelled' : 'interrupted',
        error: reason === 'cancel' ? 'Cancelled on request.' : INTERRUPTED[work],
      }),
    notStarted: (id, reason) =>
      end(id, {
        status: reason === 'cancel' ? 'cancelled' : 'interrupted',
        error:
          reason === 'cancel'
            ? 'Cancelled before it started.'
            : `The service stopped before this ${NOUN[work]} started; start it again.`,
      }),
    refused: (id, why) => end(id, { status: 'failed', error: `Refused: ${why}` }),
    retrying: (id, failure, attempts, at, patch) =>
      write(id, { ...patch, status: 'queued', error: retryNote(failure, attempts, at) }),
    merged: (id, note) => end(id, { status: 'done', error: `Merged: ${note}.` }),
  };
}
