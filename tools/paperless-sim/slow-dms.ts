import { createSemaphore } from '../../server/dms/semaphore.js';
import type { SimResult } from '../../server/dms/demo/http-kit.js';

/**
 * A slow real Paperless-ngx, roughly: Django behind a small granian (its web server since 2.15) on a NAS. Each
 * request holds one of `workers` slots (the rest queue, as in the server's backlog) for `latencyMs` plus
 * `perDocumentMs` for every document row it answers. Rows cost the same whatever `fields` asks for: Paperless's
 * queryset loads content and prefetches tags, notes and custom fields for every row of a page (real-servers.md).
 */
export interface SlowDmsProfile {
  latencyMs: number;
  perDocumentMs: number;
  workers: number;
}

/** The profile the benchmark calls "slow dms": 60 ms per request, 2 ms per document row, 4 workers, like a small host. */
export const SLOW_DMS: SlowDmsProfile = { latencyMs: 60, perDocumentMs: 2, workers: 4 };

export interface SlowDms {
  /** Runs one API request in a worker slot. */
  serve(task: () => Promise<void>): Promise<void>;
  /**
   * Waits out what is left, before the answer is written, of the time the worker would need for it: the
   * simulator's own work on it since `since` (the query, the JSON) counts in, as a real dms's does in its own
   * time. On the bench's machine that work also competes with the service for its cores; a dms on its own host
   * would not, and an answer must not take the profile's time plus the simulator's.
   */
  pace: (result: SimResult, since: number) => Promise<void>;
  /** Milliseconds of worker time spent since the last reset (sum over slots). */
  busyMs(): number;
  resetBusy(): void;
}

function rowsOf(result: SimResult): number {
  const results = (result.body as { results?: unknown } | undefined)?.results;
  return Array.isArray(results) ? results.length : 1;
}

export function createSlowDms(profile: SlowDmsProfile): SlowDms {
  const slots = createSemaphore(Math.max(1, profile.workers));
  let busy = 0;
  return {
    serve: (task) => slots.run(task),
    async pace(result, since) {
      const ms = profile.latencyMs + profile.perDocumentMs * rowsOf(result);
      busy += ms;
      const left = ms - (performance.now() - since);
      if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
    },
    busyMs: () => busy,
    resetBusy: () => void (busy = 0),
  };
}
