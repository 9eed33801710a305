import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync } from '../atomic-write.js';
import { safeEqual } from './constant-time.js';

/** The file in the data dir that holds the first start's setup code (0600: the service's own user only). */
export const SETUP_CODE_FILE = 'setup-code';

/**
 * The first start's one-time setup code: proof that whoever creates the admin account can read what only
 * someone at the machine can (the start log, the data dir, the desktop window). No request property can
 * prove that: a reverse proxy on this machine makes a LAN browser's request look exactly like a local one.
 */
export interface SetupCode {
  /** Where the code is kept while it is needed. */
  readonly file: string;
  /** The code, or null once it is spent (or was never needed). */
  current(): string | null;
  /** True when `code` is the current code (compared in constant time). */
  matches(code: unknown): boolean;
  /** Spends the code: forgotten and its file removed (the admin exists now). */
  discard(): void;
}

/** A fresh code (written to the data dir) when `needed`, else none; a code left by an earlier start is removed. */
export function createSetupCode(dataDir: string, needed: boolean): SetupCode {
  const file = path.join(dataDir, SETUP_CODE_FILE);
  let code: string | null = null;
  if (needed) {
    code = crypto.randomBytes(15).toString('base64url');
    fs.mkdirSync(dataDir, { recursive: true });
    writeFileAtomicSync(file, `${code}\n`, { mode: 0o600 });
  } else {
    fs.rmSync(file, { force: true });
  }
  return {
    file,
    current: () => code,
    matches: (candidate) =>
      code !== null && typeof candidate === 'string' && candidate.length <= 200 && safeEqual(candidate.trim(), code),
    discard() {
      code = null;
      fs.rmSync(file, { force: true });
    },
  };
}
