import type { DmsTarget } from '../dms/dms-switch.js';

/** What the settings service needs to apply a new dms while the service runs. */
export interface LiveDms {
  /** Why the dms cannot be switched now (work on the current one is under way), or null. */
  busy(): string | null;
  switchTo(target: DmsTarget): Promise<void>;
}

/** Work in flight on the current dms, counted by the caller. */
export interface DmsWork {
  /** Jobs and undos queued or running. */
  jobs: number;
  /** Webhook deliveries waiting or running. */
  deliveries: number;
  /** Notes recorded and not yet added (an `add_note` waiting for the dms to answer). */
  notes: number;
  /** Documents a run holds (a manual run, the last of a stopped catch-up); counted once the switch has begun. */
  runs?: number;
}

/**
 * Jobs, webhook deliveries and notes waiting to be added read and write documents by id, and ids mean other documents in another dms: the
 * switch waits until they are done (nothing is saved meanwhile), and says what to wait for. A running catch-up
 * does not hold it up: it stops between two documents and goes on from its cursor when that dms is used again.
 */
export function dmsBusyReason(work: DmsWork): string | null {
  const parts = [
    work.jobs > 0 ? `${work.jobs} job${work.jobs === 1 ? '' : 's'}` : null,
    work.deliveries > 0 ? `${work.deliveries} webhook deliver${work.deliveries === 1 ? 'y' : 'ies'}` : null,
    work.notes > 0 ? `${work.notes} note${work.notes === 1 ? '' : 's'} not yet added` : null,
    (work.runs ?? 0) > 0 ? `${work.runs} document${work.runs === 1 ? '' : 's'} being run` : null,
  ].filter((p): p is string => p !== null);
  if (parts.length === 0) return null;
  return `Not saved: work on the current dms is under way (${parts.join(', ')}), and document ids mean other documents in another dms. Save again when it has finished (the jobs page shows it), or cancel the jobs.`;
}

/** Resolves once no document is held by a run, or after `limitMs` (then the caller finds it still busy). */
export async function runsFinished(lane: { readonly busy: number }, limitMs: number): Promise<void> {
  const until = Date.now() + limitMs;
  while (lane.busy > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
}
