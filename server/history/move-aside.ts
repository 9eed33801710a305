import fs from 'node:fs';
import type { Logger } from '../log.js';

/**
 * Moves an unreadable store file out of the way (`<file>.corrupt-<time>`) so a fresh one can start:
 * never overwrite what could not be read, keep the bytes for a person to inspect, and say so in the log.
 */
export function moveAside(file: string, what: string, reason: string, logger: Logger, now = new Date()): void {
  if (!fs.existsSync(file)) return;
  const aside = `${file}.corrupt-${now.toISOString().replace(/[:.]/g, '-')}`;
  try {
    fs.renameSync(file, aside);
    logger.error(`${what} ${file} could not be read (${reason}); moved it to ${aside} and started a fresh one`);
  } catch (err) {
    logger.error(`${what} ${file} could not be read (${reason}) nor moved aside: ${(err as Error).message}`);
  }
}
