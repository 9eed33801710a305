import fsp from 'node:fs/promises';
import { writeFileAtomic } from '../../atomic-write.js';
import type { Logger } from '../../log.js';
import { errorMessage } from '../../error-message.js';

/** What the scheduler remembers per rule across restarts, so a run missed while down is caught up once. */
export interface RuleScheduleState {
  /** The cron pattern this state belongs to; a changed schedule starts counting afresh. */
  pattern: string;
  /** Runs due after this time are still to come (first seen, or the last run or skip). */
  since: string;
  last_run: string | null;
  last_event_id: number | null;
  /** When a due run was skipped because the previous one was still going. */
  last_skipped: string | null;
}

export type ScheduleState = Record<string, RuleScheduleState>;

/** Reads the state file; a missing file is an empty state, an unreadable one is moved aside (never overwritten). */
export async function readScheduleState(file: string, logger: Logger): Promise<ScheduleState> {
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
  try {
    const data: unknown = JSON.parse(text);
    if (typeof data === 'object' && data !== null && !Array.isArray(data)) return data as ScheduleState;
    throw new Error('not a JSON object');
  } catch (err) {
    const aside = `${file}.unreadable`;
    await fsp.rename(file, aside);
    logger.warn(
      `schedules: ${file} could not be read (${errorMessage(err)}); moved to ${aside}, scheduled runs count from now.`,
    );
    return {};
  }
}

export async function writeScheduleState(file: string, state: ScheduleState): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
}
