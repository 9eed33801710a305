/** Counts failed logins per address in a sliding window; blocks the address once the limit is reached. */
export interface LoginThrottle {
  /** Seconds to wait before trying again, or 0 when the address may try now. */
  retryAfter(address: string): number;
  recordFailure(address: string): void;
  recordSuccess(address: string): void;
}

export function createLoginThrottle(options: { limit?: number; windowMs?: number; now?: () => number } = {}): LoginThrottle {
  const limit = options.limit ?? 10;
  const windowMs = options.windowMs ?? 5 * 60 * 1000;
  const now = options.now ?? Date.now;
  const failures = new Map<string, number[]>();

  const recent = (address: string) => {
    const cutoff = now() - windowMs;
    const kept = (failures.get(address) ?? []).filter((t) => t > cutoff);
    if (kept.length === 0) failures.delete(address);
    else failures.set(address, kept);
    return kept;
  };

  return {
    retryAfter(address) {
      const times = recent(address);
      if (times.length < limit) return 0;
      return Math.max(1, Math.ceil((times[times.length - limit] + windowMs - now()) / 1000));
    },
    recordFailure(address) {
      const times = recent(address);
      times.push(now());
      failures.set(address, times);
    },
    recordSuccess(address) {
      failures.delete(address);
    },
  };
}
