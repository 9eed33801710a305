/** Where a sign-in attempt comes from; `local` is this computer reached directly (loopback, no proxy). */
export interface ThrottleSource {
  key: string;
  local: boolean;
}

/**
 * A growing delay per source and per account instead of a hard lock: after a few free failures each
 * further failure doubles the wait before the next attempt, up to a cap. A local source's cap is a few
 * seconds and the per-account delay never applies to it, so nobody elsewhere can keep the admin at the
 * computer out; remote sources wait up to minutes, and all of them together up to a minute per account.
 */
export interface LoginThrottle {
  /** Seconds to wait before this source may try this account again, or 0 when it may try now. */
  retryAfter(source: ThrottleSource, account: string): number;
  recordFailure(source: ThrottleSource, account: string): void;
  recordSuccess(source: ThrottleSource, account: string): void;
}

export interface LoginThrottleOptions {
  /** Failures without any delay. */
  freeFailures?: number;
  /** Failures older than this (since the last one) are forgotten. */
  forgetAfterMs?: number;
  localCapSeconds?: number;
  remoteCapSeconds?: number;
  accountCapSeconds?: number;
  /** Sources remembered at most; the least recently failing are forgotten first (bounded memory). */
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
  const forgetAfterMs = options.forgetAfterMs ?? 15 * 60 * 1000;
  const caps = { local: options.localCapSeconds ?? LOCAL_CAP_SECONDS, remote: options.remoteCapSeconds ?? 300, account: options.accountCapSeconds ?? 60 };
  const maxTracked = options.maxTracked ?? 10_000;
  const now = options.now ?? Date.now;
  const failures = new Map<string, Failures>();

  const current = (key: string): Failures | undefined => {
    const entry = failures.get(key);
    if (entry && now() - entry.last > forgetAfterMs) failures.delete(key);
    return failures.get(key);
  };

  const wait = (key: string, capSeconds: number): number => {
    const entry = current(key);
    if (!entry || entry.count < free) return 0;
    const delayMs = Math.min(capSeconds, 2 ** (entry.count - free)) * 1000;
    const left = entry.last + delayMs - now();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  };

  const count = (key: string) => {
    const entry = current(key) ?? { count: 0, last: 0 };
    failures.delete(key);
    failures.set(key, { count: entry.count + 1, last: now() });
    if (failures.size > maxTracked) failures.delete(failures.keys().next().value as string);
  };

  const sourceKey = (source: ThrottleSource) => `source:${source.local ? 'local' : source.key}`;
  // Only a prefix: the key is attacker-chosen text, and up to maxTracked of them are kept.
  const accountKey = (account: string) => `account:${account.slice(0, 100)}`;

  return {
    retryAfter(source, account) {
      const bySource = wait(sourceKey(source), source.local ? caps.local : caps.remote);
      return source.local ? bySource : Math.max(bySource, wait(accountKey(account), caps.account));
    },
    recordFailure(source, account) {
      count(sourceKey(source));
      if (!source.local) count(accountKey(account));
    },
    recordSuccess(source) {
      failures.delete(sourceKey(source));
    },
  };
}
