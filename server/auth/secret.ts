import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync } from '../atomic-write.js';
import type { Logger } from '../log.js';

const SECRET_FILE = 'session-secret';

/**
 * The configured secret, or one generated on first start and kept (0600) in the data dir. A kept secret
 * too short to be one this service wrote (a truncated or garbled file) is replaced, and the log says so:
 * every session signed with it ends.
 */
export function loadOrCreateSessionSecret(dataDir: string, configured: string | null, logger?: Logger): string {
  if (configured) return configured;
  const file = path.join(dataDir, SECRET_FILE);
  try {
    const existing = fs.readFileSync(file, 'utf8').trim();
    if (existing.length >= 32) return existing;
    logger?.warn(`session secret ${file} is damaged (${existing.length} characters, at least 32 expected); a new one was generated, so everyone has to sign in again`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const secret = crypto.randomBytes(48).toString('base64url');
  writeFileAtomicSync(file, secret, { mode: 0o600 });
  return secret;
}
