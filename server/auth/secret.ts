import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync } from '../atomic-write.js';

const SECRET_FILE = 'session-secret';

/** The configured secret, or one generated on first start and kept (0600) in the data dir. */
export function loadOrCreateSessionSecret(dataDir: string, configured: string | null): string {
  if (configured) return configured;
  const file = path.join(dataDir, SECRET_FILE);
  try {
    const existing = fs.readFileSync(file, 'utf8').trim();
    if (existing.length >= 32) return existing;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const secret = crypto.randomBytes(48).toString('base64url');
  writeFileAtomicSync(file, secret, { mode: 0o600 });
  return secret;
}
