import type { DmsClient } from '../../dms/types.js';
import { DmsNotFoundError } from '../../dms/dms-errors.js';
import type { EventRecord, EventStore } from '../../history/event-store.js';
import type { Logger } from '../../log.js';
import type { Arrive, ArrivalRead } from '../arrival/arrive.js';
import { eventLifecycle } from '../event-lifecycle.js';
import { mapBounded } from '../pipeline/map-bounded.js';
import type { DocumentLane } from '../lane/document-lane.js';
import type { CursorStore } from './cursor-store.js';
import { errorMessage } from '../../error-message.js';
import type { ArrivalJournal } from '../journal/arrival-journal.js';

export interface CatchUpDeps {
  dms: Pick<DmsClient, 'pages' | 'getDocument'>;
  events: EventStore;
  /** The per-document lane: a document another path ran since its page was read is read again. */
  lane: Pick<DocumentLane, 'generation'>;
  /** The front door every automatic arrival runs through (the webhook's too): echo, handled, retry, give up. */
  arrive: Arrive;
  /** True when a webhook delivery for the document waits in its queue: that run reads it fresh, so this arrival joins it. */
  queued(document: number): boolean;
  cursor: CursorStore;
  logger: Logger;
  dryRun(): boolean;
  /** Where the very first catch-up starts; null = now (no run over an existing archive). */
  startFrom: string | null;
  /** Minutes between polls; 0 = no polling. Read before each wait so a settings change applies. */
  pollMinutes(): number;
  /** Whether the dms answers (cached by the connection); a down → up change starts a catch-up. */
  dmsReachable(): Promise<boolean>;
  /** Writes a kill cut short are reconciled (at start) before the first page is read. */
  journal?: Pick<ArrivalJournal, 'ready'>;
  concurrency?: number;
  pageSize?: number;
  /** First retry pause after a failed catch-up; doubles up to 15 minutes. */
  retryBaseMs?: number;
  /** How often the service checks for a dms that came back, a sleep of the machine, or a poll due. */
  tickMs?: number;
  now?: () => number;
}

export interface CatchUpState {
  last_heard_at: string | null;
  since: string | null;
  running_event: number | null;
  /** Documents of the running catch-up not processed yet. */
  remaining: number;
  last_error: string | null;
  next_retry_at: string | null;
  polling_minutes: number;
}

export interface CatchUpService {
  /**
   * Starts the first catch-up and the watch for polls, a dms that comes back and a machine that slept; resolves
   * once a first start's cursor is on disk.
   */
  start(): Promise<void>;
  /** Runs a catch-up now (or joins the running one); resolves with its event. */
  runNow(reason: string): Promise<EventRecord | null>;
  /** The dms reached the service (a webhook arrived). */
  heard(): void;
  state(): CatchUpState;
  stop(): Promise<void>;
}

/** Minutes between polls: SVC_POLL_MINUTES when set, else 5 without SVC_API_TOKEN and off with one (docs/configuration.md). */
export function pollMinutesOf(config: { pollMinutes: number | null; apiToken: string | null }): number {
  return config.pollMinutes ?? (config.apiToken ? 0 : 5);
}

const MAX_RETRY_MS = 15 * 60_000;
const POLLING = 'polling';

/**
 * Catch-up and polling: documents added or changed in the dms since the cursor are read with a
 * filter query (`modified__gte`, paged, never a scan of everything) and each goes through the front door
 * (`arrival/arrive.ts`) with the cursor as its facts; the front door skips what the service already handled, so
 * overlaps never run anything twice, and says when a document the dms refused is tried again.
 */
export function createCatchUpService(deps: CatchUpDeps): CatchUpService {
  const now = deps.now ?? Date.now;
  const { events, logger } = deps;
  const life = eventLifecycle(events, 'catchup', () => new Date(now()));
  let running: Promise<EventRecord | null> | null = null;
  let runningEvent: number | null = null;
  let remaining = 0;
  let lastError: string | null = null;
  let retryAt: number | null = null;
  let failures = 0;
  let lastPoll = now();
  let lastTick = now();
  let dmsWasDown = false;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let lastHeard = deps.cursor.read()?.last_heard_at ?? null;

  const catchUp = async (reason: string): Promise<EventRecord | null> => {
    const cursor = deps.cursor.read();
    if (!cursor) return null;
    await deps.journal?.ready;
    const dryRun = deps.dryRun();
    const event = events.create({ kind: 'catchup', rule_id: null, dry_run: dryRun });
    runningEvent = event.event_id;
    const startedAt = now();
    const tally = { total: null as number | null, processed: 0, matched: 0, changed: 0, errors: 0 };
    const found = { since: cursor.since, added: 0, updated: 0, skipped: 0, merged: 0, failed_before: 0 };
    life.running(event.event_id, { catchup: { ...found } });
    logger.info(`catch-up ${event.event_id} (${reason}): documents changed in the dms since ${cursor.since}`);
    let newest: number | null = null;
    // A document whose run failed (the dms refused a write, say) keeps the cursor before it, so the next catch-up tries it again.
    let oldestFailed: number | null = null;
    let nextRetryMs = null as number | null;
    const since = Date.parse(cursor.since);
    try {
      // With permissions, as a webhook's single read has them: any rule may have a permission action.
      for await (const page of deps.dms.pages({
        filters: { modified__gte: cursor.since },
        pageSize: deps.pageSize ?? 100,
        fullPerms: true,
      })) {
        tally.total ??= page.count;
        remaining = page.count - tally.processed;
        // What each document's lane had seen when the page was read: a run since makes this copy stale.
        const readAt = new Map(page.documents.map((doc) => [doc.id, deps.lane.generation(doc.id)]));
        await mapBounded(
          page.documents,
          deps.concurrency ?? 2,
          async (doc) => {
            const modified = Date.parse(doc.modified);
            if (!Number.isNaN(modified)) newest = Math.max(newest ?? modified, modified);
            if (deps.queued(doc.id)) {
              // A webhook delivery for it is waiting and reads it fresh: one run covers both arrivals.
              found.merged++;
            } else {
              const outcome = await deps.arrive({
                document: doc.id,
                from: 'catchup',
                eventId: event.event_id,
                dryRun,
                facts: { changedSince: since },
                read: (reconciled) =>
                  !reconciled && deps.lane.generation(doc.id) === readAt.get(doc.id)
                    ? Promise.resolve({ document: doc })
                    : readAgain(doc.id),
              });
              if (outcome.kind === 'skipped' || outcome.kind === 'gone') found.skipped++;
              // Given up on until a person runs or changes it (health lists it); the cursor moves past it.
              else if (outcome.kind === 'given-up') found.failed_before++;
              else if (outcome.kind === 'done') {
                for (const trigger of outcome.triggers) if (trigger !== 'unknown') found[trigger]++;
                tally.matched += outcome.counts.matched > 0 ? 1 : 0;
                tally.changed += outcome.counts.changed;
                tally.errors += outcome.counts.errors > 0 ? 1 : 0;
              } else {
                // One document that fails is its traces' story; the catch-up goes on, and the cursor stays before it
                // while the front door tries it again.
                tally.errors++;
                if (outcome.kind === 'retry') {
                  nextRetryMs = Math.min(nextRetryMs ?? outcome.inMs, outcome.inMs);
                  if (!Number.isNaN(modified)) oldestFailed = Math.min(oldestFailed ?? modified, modified);
                }
                if (outcome.kind !== 'wait')
                  logger.warn(`catch-up ${event.event_id}: document ${doc.id} failed: ${outcome.message}`);
              }
            }
            tally.processed++;
            remaining = (tally.total ?? 0) - tally.processed;
          },
          () => stopped,
        );
        life.progress(event.event_id, { ...tally, catchup: { ...found } });
        if (stopped) break;
      }
      if (stopped) {
        // The cursor stays where it was: the next start reads these documents again and skips the handled ones.
        return life.stopped(event.event_id, 'shutdown', { ...tally, catchup: { ...found } }) ?? null;
      }
      // Documents changed while this catch-up ran may carry a `modified` older than the newest seen, so
      // the cursor keeps an overlap as long as the catch-up took; the ledger skips what is read again.
      const overlapMs = now() - startedAt + 1000;
      const next = Math.min(newest === null ? since : Math.max(since, newest - overlapMs), oldestFailed ?? Infinity);
      heardNow();
      await deps.cursor.write({ since: new Date(next).toISOString(), last_heard_at: lastHeard });
      failures = 0;
      lastError = null;
      // Documents the dms refused are tried again by a catch-up of their own, with backoff.
      retryAt = nextRetryMs === null ? null : now() + nextRetryMs;
      if (reason === POLLING && found.added + found.updated === 0 && tally.errors === 0) {
        // A poll that found nothing new leaves no record: 288 empty polls a day would push real jobs out of the history.
        events.discard(event.event_id);
        return null;
      }
      const summary = `${tally.processed} changed document(s) since ${cursor.since}: ${found.added} added, ${found.updated} updated, ${found.skipped} already handled (own writes or webhooks), ${found.merged} left to a waiting webhook delivery${found.failed_before ? `, ${found.failed_before} refused by the dms too often before (see health)` : ''}; ${tally.changed} written, ${tally.errors} error(s).`;
      return (
        life.done(event.event_id, {
          ...tally,
          catchup: { ...found },
          report: {
            matched: tally.matched,
            changed: tally.changed,
            unchanged: tally.processed - tally.changed,
            fields: {},
            samples: [],
            prefilter: { modified__gte: cursor.since },
            summary,
          },
        }) ?? null
      );
    } catch (err) {
      failures++;
      // The dms is down (not just failing): the watch starts the next catch-up as soon as it answers again.
      if (!(await deps.dmsReachable().catch(() => false))) dmsWasDown = true;
      const pause = Math.min((deps.retryBaseMs ?? 30_000) * 2 ** (failures - 1), MAX_RETRY_MS);
      retryAt = now() + pause;
      lastError = `The catch-up could not read the dms: ${errorMessage(err)}`;
      logger.warn(`${lastError}; retrying in ${Math.round(pause / 1000)} s`);
      return (
        life.failed(
          event.event_id,
          `${lastError}. It retries at ${new Date(retryAt).toISOString()}; documents already processed are not run again.`,
          { ...tally, catchup: { ...found, next_retry_at: new Date(retryAt).toISOString() } },
        ) ?? null
      );
    } finally {
      runningEvent = null;
      remaining = 0;
    }
  };

  /** The document as the dms holds it now; null when it is gone. */
  const readAgain = async (id: number): Promise<ArrivalRead> => {
    try {
      return { document: await deps.dms.getDocument(id) };
    } catch (err) {
      if (err instanceof DmsNotFoundError) return { missing: null };
      throw err;
    }
  };

  const heardNow = () => {
    lastHeard = new Date(now()).toISOString();
  };

  const runNow = (reason: string) => {
    if (stopped) return Promise.resolve(null);
    running ??= catchUp(reason).finally(() => (running = null));
    return running;
  };

  const tick = async () => {
    const at = now();
    const slept = at - lastTick > tickMs() * 3 + 10_000;
    lastTick = at;
    const reachable = await deps.dmsReachable().catch(() => false);
    const cameBack = dmsWasDown && reachable;
    dmsWasDown = !reachable;
    const poll = deps.pollMinutes();
    const pollDue = poll > 0 && at - lastPoll >= poll * 60_000;
    const retryDue = retryAt !== null && at >= retryAt;
    if (!reachable && !retryDue) return;
    if (slept || cameBack || pollDue || retryDue) {
      lastPoll = at;
      await runNow(
        slept
          ? 'the machine was asleep'
          : cameBack
            ? 'the dms is reachable again'
            : retryDue
              ? 'retry after a failure'
              : POLLING,
      );
    }
  };

  const tickMs = () => {
    const poll = deps.pollMinutes();
    return Math.min(deps.tickMs ?? 30_000, poll > 0 ? poll * 60_000 : Infinity);
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void tick().finally(schedule), tickMs());
    timer.unref();
  };

  return {
    async start() {
      schedule();
      if (deps.cursor.read()) return void runNow('start');
      // First start: from the configured date, or from now (an existing archive is not run). On disk before the
      // service answers, so a document added after a start the service did not outlive is still caught up.
      await deps.cursor.write({ since: deps.startFrom ?? new Date(now()).toISOString(), last_heard_at: null });
      if (deps.startFrom) void runNow('first start from SVC_CATCH_UP_FROM');
    },
    runNow,
    heard: heardNow,
    state: () => ({
      last_heard_at: lastHeard,
      since: deps.cursor.read()?.since ?? null,
      running_event: runningEvent,
      remaining,
      last_error: lastError,
      next_retry_at: retryAt === null ? null : new Date(retryAt).toISOString(),
      polling_minutes: deps.pollMinutes(),
    }),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
}
