/** What a ping found; `ok` false means the dms did not answer as it should (`error` says how). */
export interface PingOutcome {
  ok: boolean;
  error?: string;
}

/** The last known state of the dms, at once, with when it was learnt and since when it has not answered. */
export interface Liveness<T extends PingOutcome> {
  /** The last settled ping, or null before the first one settled. */
  last: T | null;
  reachable: boolean;
  /** When the last ping settled (ms), null before the first. */
  checkedAt: number | null;
  /** When the first ping went out that has not been answered (or failed) since the dms last answered. */
  notAnsweringSince: number | null;
  /** Why it is not reachable, when no settled ping says so itself (no answer yet, or no answer for a while). */
  waitingError: string | null;
}

export interface LivenessTracker<T extends PingOutcome> {
  /** The last known state at once; starts a background ping when it is older than the cache time. */
  known(): Liveness<T>;
  /** A result at most the cache time old: waits for a ping when needed (the deep check, the catch-up). */
  fresh(): Promise<T>;
  /** Sends the first ping and waits for it at most `waitMs` (at start, so health knows a quick dms at once). */
  warmUp(waitMs: number): Promise<void>;
  /** A request found no dms: not reachable from now until a ping answers again (the next look pings). */
  down(error: string): void;
}

export interface LivenessOptions {
  /** A result younger than this is not asked again. */
  ttlMs: number;
  /** A ping outstanding longer than this counts as "not answering". */
  slowMs: number;
  now?: () => number;
}

/**
 * Health must not wait on the dms (a slow-loris dms held `GET /api/health` for 2 s): it reads the last
 * known state, and at most one ping at a time refreshes it in the background.
 */
export function trackLiveness<T extends PingOutcome>(
  ping: () => Promise<T>,
  options: LivenessOptions,
): LivenessTracker<T> {
  const now = options.now ?? Date.now;
  let last: { result: T; at: number } | null = null;
  let pending: { startedAt: number; promise: Promise<T> } | null = null;
  let downSince: number | null = null;
  let suspect = false;

  const refresh = (): Promise<T> => {
    if (pending) return pending.promise;
    suspect = false;
    const startedAt = now();
    const promise = ping().then(
      (result) => {
        last = { result, at: now() };
        downSince = result.ok ? null : (downSince ?? startedAt);
        pending = null;
        return result;
      },
      (err: unknown) => {
        downSince ??= startedAt;
        pending = null;
        throw err;
      },
    );
    pending = { startedAt, promise };
    return promise;
  };
  const stale = () => suspect || !last || now() - last.at > options.ttlMs;

  const snapshot = (): Liveness<T> => {
    const at = now();
    const overdue = pending !== null && at - pending.startedAt > options.slowMs;
    const answered = last?.result.ok === true && !overdue;
    const since = answered ? null : (downSince ?? pending?.startedAt ?? null);
    let waitingError: string | null = null;
    if (!last)
      waitingError = `the dms has not answered yet (asked at ${new Date(pending?.startedAt ?? at).toISOString()})`;
    else if (overdue && last.result.ok)
      waitingError = `the dms has not answered since ${new Date(since ?? at).toISOString()}`;
    return {
      last: last?.result ?? null,
      reachable: answered,
      checkedAt: last?.at ?? null,
      notAnsweringSince: since,
      waitingError,
    };
  };

  return {
    known() {
      if (stale() && !pending) refresh().catch(() => undefined);
      return snapshot();
    },
    async warmUp(waitMs) {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)));
      await Promise.race([refresh().catch(() => undefined), waited]);
      clearTimeout(timer);
    },
    async fresh() {
      return !stale() && last ? last.result : refresh();
    },
    down(error) {
      const at = now();
      last = { result: { ...(last?.result as T), ok: false, error }, at };
      downSince ??= at;
      suspect = true;
    },
  };
}
