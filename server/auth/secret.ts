import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync } from '../atomic-write.js';
import type { Logger } from '../log.js';

const SECRET_FILE = 'session-secret';
const MIN_LENGTH = 32;

/** Why a stored secret cannot be used, or null when it can. */
function unusable(secret: string): string | null {
  if (!/^[\x21-\x7e]*$/.test(secret)) return 'not printable text (a torn write?)';
  if (secret.length < MIN_LENGTH) return `too short (${secret.length} characters, at least ${MIN_LENGTH})`;
  return null;
}

/**
 * The configured secret, or one generated on first start and kept (0600) in the data dir. A stored one
 * that is short or garbled is replaced, never silently: the old file is moved aside and the log says
 * that every signed-in session has ended.
 */
export function loadOrCreateSessionSecret(dataDir: string, configured: string | null, logger: Logger): string {
  if (configured) return configured;
  const file = path.join(dataDir, SECRET_FILE);
  let existing: string | null = null;
  try {
    existing = fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (existing !== null) {
    const problem = unusable(existing);
    if (problem === null) return existing;
    const aside = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    fs.renameSync(file, aside);
    logger.error(
      `${file} is ${problem}; moved it to ${aside} and generated a new one: all signed-in sessions have ended`,
    );
  }
  const secret = crypto.randomBytes(48).toString('base64url');
  writeFileAtomicSync(file, secret, { mode: 0o600 });
  return secret;
}
