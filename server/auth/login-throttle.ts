/** Where a sign-in attempt comes from; `local` is this computer reached directly (loopback, no proxy). */
export interface ThrottleSource {
  key: string;
  local: boolean;
}

/**
 * A growing delay instead of a hard lock, kept per source, per source and account, and per account: after
 * a few free failures each further failure doubles the wait before the next attempt, up to a cap. Only a
 * source's own failures can make it wait for long. The per-account delay (all remote sources together)
 * applies only to sources that have failed themselves, so however hard others hammer the account, a
 * source that has not failed (the admin on the LAN) signs in with the right password at once; the local
 * source (this computer) never sees it at all.
 */
export interface LoginThrottle {
  /** Seconds to wait before this source may try this account again, or 0 when it may try now. */
  retryAfter(source: ThrottleSource, account: string): number;
  recordFailure(source: ThrottleSource, account: string): void;
  /**
   * For a check that finishes later (an scrypt hash off the main thread): counts the attempt as failed
   * now, so parallel requests cannot all pass `retryAfter` before the first one is counted, and returns
   * `succeeded`, which takes the count back and clears the source's failures when the password was right.
   */
  begin(source: ThrottleSource, account: string): { succeeded(): void };
  recordSuccess(source: ThrottleSource, account: string): void;
}

export interface LoginThrottleOptions {
  /** Failures of one source at one account without any delay. */
  freeFailures?: number;
  /** Failures of one source over all accounts without any delay (bounds a source trying many names). */
  freeSourceFailures?: number;
  /** Failures older than this (since the last one) are forgotten. */
  forgetAfterMs?: number;
  localCapSeconds?: number;
  remoteCapSeconds?: number;
  accountCapSeconds?: number;
  /** Keys remembered at most; the least recently failing are forgotten first (bounded memory). */
  maxTracked?: number;
  now?: () => number;
}

interface Failures {
  count: number;
  last: number;
}

export const LOCAL_CAP_SECONDS = 5;

export function createLoginThrottle(options: LoginThrottleOptions = {}): LoginThrottle {
  const free = options.freeFailures ?? 5;
  const freeBySource = options.freeSourceFailures ?? 2 * free;
  const forgetAfterMs = options.forgetAfterMs ?? 15 * 60 * 1000;
  const caps = {
    local: options.localCapSeconds ?? LOCAL_CAP_SECONDS,
    remote: options.remoteCapSeconds ?? 300,
    account: options.accountCapSeconds ?? 60,
  };
  const maxTracked = options.maxTracked ?? 10_000;
  const now = options.now ?? Date.now;
  const failures = new Map<string, Failures>();

  const current = (key: string): Failures | undefined => {
    const entry = failures.get(key);
    if (entry && now() - entry.last > forgetAfterMs) failures.delete(key);
    return failures.get(key);
  };

  const wait = (key: string, freeCount: number, capSeconds: number): number => {
    const entry = current(key);
    if (!entry || entry.count < freeCount) return 0;
    const delayMs = Math.min(capSeconds, 2 ** (entry.count - freeCount)) * 1000;
    const left = entry.last + delayMs - now();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  };

  const count = (key: string) => {
    const entry = current(key) ?? { count: 0, last: 0 };
    failures.delete(key);
    failures.set(key, { count: entry.count + 1, last: now() });
    if (failures.size > maxTracked) failures.delete(failures.keys().next().value as string);
  };

  /** Takes back one count made at `at`; the time of the last failure goes back too unless another came since. */
  const uncount = (key: string, before: Failures | undefined, at: number) => {
    const entry = failures.get(key);
    if (!entry) return;
    if (entry.count <= 1) failures.delete(key);
    else {
      entry.count -= 1;
      if (entry.last === at && before) entry.last = before.last;
    }
  };

  const sourceKey = (source: ThrottleSource) => `source:${source.local ? 'local' : source.key}`;
  // Only a prefix: the account is attacker-chosen text, and up to maxTracked keys are kept.
  const accountKey = (account: string) => `account:${account.slice(0, 100)}`;
  const pairKey = (source: ThrottleSource, account: string) =>
    `pair:${source.local ? 'local' : source.key}\u0000${account.slice(0, 100)}`;

  const recordFailure = (source: ThrottleSource, account: string) => {
    count(sourceKey(source));
    count(pairKey(source, account));
    if (!source.local) count(accountKey(account));
  };
  const recordSuccess = (source: ThrottleSource, account: string) => {
    failures.delete(sourceKey(source));
    failures.delete(pairKey(source, account));
  };

  return {
    retryAfter(source, account) {
      if (source.local)
        return Math.max(
          wait(sourceKey(source), freeBySource, caps.local),
          wait(pairKey(source, account), free, caps.local),
        );
      const own = Math.max(
        wait(sourceKey(source), freeBySource, caps.remote),
        wait(pairKey(source, account), free, caps.remote),
      );
      const hasFailed = current(sourceKey(source)) !== undefined;
      return hasFailed ? Math.max(own, wait(accountKey(account), free, caps.account)) : own;
    },
    recordFailure,
    recordSuccess,
    begin(source, account) {
      const before = current(accountKey(account));
      const snapshot = before && { ...before };
      recordFailure(source, account);
      const at = now();
      return {
        succeeded() {
          // A right password leaves the account's delay as it was: signing in must not prolong it for others.
          if (!source.local) uncount(accountKey(account), snapshot, at);
          recordSuccess(source, account);
        },
      };
    },
  };
}
