import fs from 'node:fs';
import type { Logger } from './log.js';
import { errorMessage } from './error-message.js';

function asideName(file: string, now: Date): string {
  return `${file}.corrupt-${now.toISOString().replace(/[:.]/g, '-')}`;
}

/**
 * Moves an unreadable store file out of the way (`<file>.corrupt-<time>`) so a fresh one can start:
 * never overwrite what could not be read, keep the bytes for a person to inspect, and say so in the log.
 */
export function moveAside(file: string, what: string, reason: string, logger: Logger, now = new Date()): void {
  if (!fs.existsSync(file)) return;
  const aside = asideName(file, now);
  try {
    fs.renameSync(file, aside);
    logger.error(`${what} ${file} could not be read (${reason}); moved it to ${aside} and started a fresh one`);
  } catch (err) {
    logger.error(`${what} ${file} could not be read (${reason}) nor moved aside: ${errorMessage(err)}`);
  }
}

/**
 * Keeps the unreadable parts of a file that was otherwise salvaged in `<file>.corrupt-<time>` (written before
 * the salvaged file replaces the original, so the bytes are never lost). Returns that path, or null when even
 * that write failed (the caller then leaves the original alone).
 */
export function setAside(file: string, content: string, logger: Logger, now = new Date()): string | null {
  let aside = asideName(file, now);
  for (let n = 2; fs.existsSync(aside); n++) aside = `${asideName(file, now)}-${n}`;
  try {
    const fd = fs.openSync(aside, 'wx', 0o600);
    try {
      fs.writeFileSync(fd, content);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    return aside;
  } catch (err) {
    logger.error(
      `could not keep the unreadable part of ${file} in ${aside}: ${errorMessage(err)}; the file is left as it is`,
    );
    return null;
  }
}
