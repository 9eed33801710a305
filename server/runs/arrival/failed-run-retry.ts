/**
 * When a run the dms refused (a 400 or 403 on a write, a 5xx that outlasted the client's own retries) is
 * tried again: after 1, 2, 4, 8 and 16 minutes by default, then the document is left failed, visible in
 * health and its event, until a person runs it or changes it (a new state starts again at the first try).
 */
export interface FailedRunRetry {
  /** The pause before the next try after `attempts` failed ones; null: no more tries. */
  delayMs(attempts: number): number | null;
  readonly maxAttempts: number;
}

export function failedRunRetry(baseMs = 60_000, maxAttempts = 6): FailedRunRetry {
  return {
    maxAttempts,
    delayMs: (attempts) => (attempts >= maxAttempts ? null : baseMs * 2 ** (attempts - 1)),
  };
}
