import type { DmsDocument } from '../../dms/types.js';
import { errorMessage } from '../../error-message.js';
import type { Attribution } from '../echo/attribution.js';
import type { DocumentStates } from '../echo/document-states.js';
import type { FailureAttempts } from '../echo/failure-attempts.js';
import type { WriteBarrier } from '../echo/write-barrier.js';
import type { ArrivalJournal } from '../journal/arrival-journal.js';
import type { DocumentLane } from '../lane/document-lane.js';
import type { WebhookTrigger } from '../webhook/parse-payload.js';
import { arrivalTriggers } from './arrival-triggers.js';
import { admit, handlesAddition, type SkipReason } from './arrival-policy.js';
import type { AutomaticRunner } from './automatic-runner.js';
import type { FailedRunRetry } from './failed-run-retry.js';

/*
 * The front door: every automatic arrival of a document — a webhook delivery, a document catch-up or polling
 * found changed — runs through `arrive`, which holds the document's lane and keeps one policy:
 *
 * 1. Settle first. A write of the document still in flight (a job's read-back, a mirrored link) is waited for,
 *    and writes a kill cut short are reconciled from the write journal, before the document is read.
 * 2. Done before. A run of this very event that the write journal says reached the dms is done (its traces
 *    rebuilt from the journal), or failed with what did not go through; it is never sent again.
 * 3. Triggers are facts: Paperless's word for a delivery; for catch-up and polling, what `added`, `modified`
 *    and the audit log show since the cursor (`arrival-triggers.ts`).
 * 4. One skip test (`admit` in `arrival-policy.ts`), whichever way the document came:
 *    - given up: the dms refused runs of exactly this state `retry.maxAttempts` times; it waits for a person;
 *    - an `added` arrival is never an echo: it is dropped only as a repeat of an addition the service handled
 *      (same `added` time) with the document still in the state the service left it;
 *    - echo: exactly as the service's own last write left it, and nothing foreign since by the audit log;
 *    - handled: catch-up and polling (which read every document whose `modified` moved) skip a state the
 *      service handled without writing; a delivery, Paperless's word that a save happened, runs it.
 * 5. Run every rule whose `on` matches (`automatic-runner.ts`), then wait for the run's writes to settle.
 *    Handled means applied: only a run applied in full (or dry) records the state as handled.
 * 6. One retry rule: a run or a read the dms failed counts an attempt for the document (per state for a run);
 *    the next try comes after `retry.delayMs(attempts)` (1, 2, 4, 8, 16 minutes), then the arrival gives up,
 *    and the document stays in health's `failed_documents` until it changes or a person runs it.
 *
 * The callers own only how an arrival comes and waits: the webhook queue re-queues a delivery, catch-up keeps
 * its cursor before the document and schedules a catch-up of its own. Schedules are not arrivals: a schedule
 * starts a rule job over every document, which goes through the job queue and `event-lifecycle.ts`.
 */

export type ArrivalSource = 'webhook' | 'catchup';

/** What reading the document came to. */
export type ArrivalRead =
  | { document: DmsDocument }
  /** Not readable yet (Paperless calls before its commit): ask again after this pause. */
  | { retryInMs: number }
  /** The dms does not have it; `message` (a delivery) is recorded in its rules' traces, null (catch-up) is no news. */
  | { missing: string | null };

export interface Arrival {
  document: number;
  from: ArrivalSource;
  eventId: number;
  dryRun: boolean;
  /** What Paperless said happened, or (catch-up, polling) the cursor the facts are read against. */
  facts: { said: readonly WebhookTrigger[] } | { changedSince: number };
  /** Reads the document inside the lane; `reconciled`: the journal just settled writes of it, a copy read earlier is stale. */
  read(reconciled: boolean): Promise<ArrivalRead>;
  /** Called right before the rules run (the event turns `running`). */
  starting?(): void;
}

export interface ArrivalCounts {
  matched: number;
  changed: number;
  errors: number;
}

export type ArrivalOutcome =
  | { kind: 'skipped'; reason: Exclude<SkipReason, 'given-up'> }
  | { kind: 'given-up'; attempts: number; message: string }
  | { kind: 'done'; triggers: readonly WebhookTrigger[]; counts: ArrivalCounts }
  | { kind: 'retry'; inMs: number; attempts: number; message: string; counts: ArrivalCounts }
  | { kind: 'failed'; message: string; counts: ArrivalCounts }
  | { kind: 'wait'; inMs: number }
  | { kind: 'gone' };

export interface FrontDoorDeps {
  lane: Pick<DocumentLane, 'exclusive'>;
  barrier: WriteBarrier;
  states: DocumentStates;
  failures: Pick<FailureAttempts, 'failed' | 'failedRead' | 'failedAttempts' | 'failureOf' | 'succeeded'>;
  attribution: Pick<Attribution, 'onlyOwnChanges' | 'editedAfterAdded'>;
  runner: AutomaticRunner;
  retry: FailedRunRetry;
  journal?: Pick<ArrivalJournal, 'ready' | 'reconcile' | 'completed' | 'ensureTraces' | 'recognise'>;
}

export type Arrive = (arrival: Arrival) => Promise<ArrivalOutcome>;

const NONE: ArrivalCounts = { matched: 0, changed: 0, errors: 0 };

export function createFrontDoor(deps: FrontDoorDeps): Arrive {
  const { states, failures } = deps;

  /** A failure of the run or the read: tried again after the policy's pause, or given up on. */
  const failure = (
    arrival: Arrival,
    message: string,
    attempts: number,
    counts: ArrivalCounts,
    unread?: readonly WebhookTrigger[],
  ): ArrivalOutcome => {
    const inMs = deps.retry.delayMs(attempts);
    if (inMs !== null) return { kind: 'retry', inMs, attempts, message, counts };
    const final = givenUp(message, attempts);
    // A delivery whose document could never be read: its rules' traces say so.
    if (unread) deps.runner.fail(arrival.document, unread, ctxOf(arrival), final);
    return { kind: 'failed', message: final, counts };
  };

  const held = async (arrival: Arrival): Promise<ArrivalOutcome> => {
    const id = arrival.document;
    await deps.barrier.settled(id);
    let reconciled = false;
    if (deps.journal) {
      reconciled = await deps.journal.reconcile(id);
      const earlier = deps.journal.completed(arrival.eventId, id);
      if (earlier) {
        deps.journal.ensureTraces(earlier);
        const counts = { matched: earlier.entry.rules.length > 0 ? 1 : 0, changed: 1, errors: 0 };
        const missed = earlier.outcomes.filter((o) => o?.ok === false).map((o) => o?.error);
        if (missed.length === 0) return { kind: 'done', triggers: [], counts };
        const message = `Its writes reached the dms only in part before the service stopped: ${missed.join('; ')}`;
        return { kind: 'failed', message, counts: { ...counts, errors: 1 } };
      }
    }
    let read: ArrivalRead;
    try {
      read = await arrival.read(reconciled);
    } catch (err) {
      const message = `The dms failed to read document ${id}: ${errorMessage(err)}`;
      const said = 'said' in arrival.facts ? arrival.facts.said : undefined;
      return failure(arrival, message, failures.failedRead(id, message), { ...NONE, errors: 1 }, said);
    }
    if ('retryInMs' in read) return { kind: 'wait', inMs: read.retryInMs };
    if ('missing' in read) {
      if (read.missing === null) return { kind: 'gone' };
      const said = 'said' in arrival.facts ? arrival.facts.said : ['unknown' as const];
      deps.runner.fail(id, said, ctxOf(arrival), read.missing);
      return { kind: 'failed', message: read.missing, counts: { ...NONE, errors: 1 } };
    }
    const document = read.document;
    // A write the write journal knows and the states lost (a kill): the service's own.
    deps.journal?.recognise(document);
    const triggers =
      'said' in arrival.facts
        ? arrival.facts.said
        : await arrivalTriggers(document, arrival.facts.changedSince, { states, attribution: deps.attribution });
    const skip = await admit(
      {
        triggers,
        fromRead: arrival.from === 'catchup',
        addedHandled: states.addedHandled(document),
        known: states.isKnownState(document),
        own: states.isOwnWrite(document),
        failedAttempts: failures.failedAttempts(document),
      },
      deps.retry.maxAttempts,
      async () => {
        const write = states.ownWrite(document);
        return write === null || (await deps.attribution.onlyOwnChanges(document, write));
      },
    );
    if (skip === 'given-up') {
      const attempts = failures.failedAttempts(document);
      return { kind: 'given-up', attempts, message: givenUp(failures.failureOf(id) ?? 'The dms refused it', attempts) };
    }
    if (skip) return { kind: 'skipped', reason: skip };
    arrival.starting?.();
    let counts: ArrivalCounts;
    let refused: string | null;
    try {
      const { failure: why, ...ran } = await deps.runner.run(document, triggers, ctxOf(arrival));
      counts = ran;
      refused = why;
    } catch (err) {
      counts = { ...NONE, errors: 1 };
      refused = `The run of document ${id} failed: ${errorMessage(err)}`;
    }
    await deps.barrier.settled(id);
    if (refused !== null) return failure(arrival, refused, failures.failed(document, refused), counts);
    failures.succeeded(id);
    states.handled(document, !arrival.dryRun && counts.changed > 0, handlesAddition(triggers));
    return { kind: 'done', triggers, counts };
  };

  // The start's reconciliation is waited for before the lane is asked for: it holds lanes of its own.
  return async (arrival) => {
    await deps.journal?.ready;
    return deps.lane.exclusive(arrival.document, () => held(arrival));
  };
}

const ctxOf = (arrival: Arrival) => ({ eventId: arrival.eventId, dryRun: arrival.dryRun, source: arrival.from });

/** A failure the retries could not get past, as its event and health say it. */
export const givenUp = (message: string, attempts: number): string =>
  `${message} (tried ${attempts} times; run it by hand once the cause is fixed)`;
