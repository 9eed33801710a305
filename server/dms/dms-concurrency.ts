import type { Transport } from './http-transport.js';
import type { DmsClient, ProbeRound } from './types.js';

// How many requests the dms serves at once. Paperless runs one granian worker unless told otherwise
// (PAPERLESS_WEBSERVER_WORKERS), and requests kept waiting in its queue read nothing faster: they hold a person's
// clicks in Paperless behind them (docs/decisions.md). Identical requests sent together answer in waves of as many
// as the dms serves at once: one worker answers them at 1, 2, 3 and 4 times the quickest, four all at once.

/** Identical requests sent together: they tell one, two, three, and four or more workers apart. */
export const CONCURRENCY_PROBES = 4;

/**
 * The quickest answer must take at least this long to tell waves apart: the service's own event loop moves the
 * moment it sees an answer by a few milliseconds. A dms that quick keeps nobody waiting long in its queue anyway.
 */
const QUICK_ANSWER_MS = 10;

/** An answer within this factor of the quickest came in the first wave. */
const SAME_WAVE = 1.5;

/**
 * How many of identical requests sent together the dms served at once, from the time each took until its answer
 * began; null when too few answered or the answers were too quick to tell. A stall of this process can only
 * delay when an answer is seen: it may hide a wave's answer (fewer counted) or gather two waves (more counted).
 */
export function concurrencyFromLatencies(latencies: readonly number[]): number | null {
  if (latencies.length < 2) return null;
  const quickest = Math.min(...latencies);
  if (quickest < QUICK_ANSWER_MS) return null;
  return latencies.filter((ms) => ms < SAME_WAVE * quickest).length;
}

/**
 * Sends `CONCURRENCY_PROBES` copies of the cheapest list request at once (a one-row page matching no document, as
 * the health ping asks), once nothing else of this transport is under way, and returns what their answers tell.
 */
export async function probeConcurrency(
  transport: Pick<Transport, 'send' | 'attempts' | 'whenIdle'>,
  now: () => number = () => performance.now(),
): Promise<ProbeRound> {
  const query = new URLSearchParams({ page_size: '1', fields: 'id', id__in: '0' });
  await transport.whenIdle();
  const before = transport.attempts();
  const started = now();
  const latencies = await Promise.allSettled(
    Array.from({ length: CONCURRENCY_PROBES }, async () => {
      let answeredAt = NaN;
      const onAnswer = () => (answeredAt = now() - started);
      await transport.send({ method: 'GET', path: '/api/documents/', query, idempotent: true, onAnswer });
      return answeredAt;
    }),
  );
  const answered = latencies.flatMap((r) => (r.status === 'fulfilled' && Number.isFinite(r.value) ? [r.value] : []));
  const alone = transport.attempts() - before === CONCURRENCY_PROBES;
  if (!alone || answered.length < CONCURRENCY_PROBES) return null;
  return concurrencyFromLatencies(answered) ?? 'quick';
}

export interface ConcurrencyLearner {
  /** What the last learning saw the dms serve at once (the more of its two rounds), null until one could tell. */
  servesAtOnce(): number | null;
  /** Two rounds of probes, unless an earlier learning told something (a number, or too quick to tell). One at a time. */
  learn(): Promise<void>;
  /**
   * Learns afresh, its figure replacing the one before: for a dms that came back after it stopped answering, which
   * may be a restart with another number of web workers (`PAPERLESS_WEBSERVER_WORKERS`). Until the new rounds tell
   * something (a number, or answers too quick to tell: no figure), reads keep the old figure.
   */
  relearn(): Promise<void>;
}

/**
 * What a client's dms serves at once, learnt in rounds of two: a request of someone else's among the probes can hide
 * one of their answers, so the more of the two rounds is kept, and the client's reads use it (`useConcurrency`). A
 * client whose rounds all came to nothing (the dms down, or other requests under way) is asked again by the next
 * `learn`.
 */
export function concurrencyLearner(dms: Pick<DmsClient, 'probeConcurrency' | 'useConcurrency'>): ConcurrencyLearner {
  let served: number | null = null;
  let settled = false;
  let learning: Promise<void> | null = null;
  const learn = () => {
    if (settled) return Promise.resolve();
    learning ??= (async () => {
      let most: number | null = null;
      let told = false;
      for (let round = 0; round < 2; round++) {
        const said = await dms.probeConcurrency();
        if (said !== null) told = true;
        if (typeof said === 'number') most = Math.max(most ?? 0, said);
      }
      // Said once both rounds are in, so that what is shown does not change a moment later. Answers all too quick
      // to tell leave no figure: reads keep their default.
      if (told) {
        settled = true;
        served = most;
        dms.useConcurrency(most);
      }
    })().finally(() => (learning = null));
    return learning;
  };
  return {
    servesAtOnce: () => served,
    learn,
    async relearn() {
      // Rounds under way began before the dms came back: let them end, then learn again.
      await learning;
      settled = false;
      return learn();
    },
  };
}
