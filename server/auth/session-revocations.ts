import fs from 'node:fs';
import { writeFileAtomicSync } from '../atomic-write.js';
import type { Logger } from '../log.js';
import { errorMessage } from '../error-message.js';

/** Sessions ended by sign-out before their expiry, kept on disk so a restart does not bring them back. */
export interface SessionRevocations {
  revoke(sessionId: string, expiresAtSeconds: number): void;
  /** True for a revoked session, or one issued before `notBefore` (see below). */
  isRevoked(sessionId: string, issuedAtSeconds: number): boolean;
}

interface RevocationFile {
  /** Sessions issued before this (seconds) are all invalid: set when the list could not be read. */
  not_before: number;
  /** session id → its expiry (seconds); dropped once expired, since the JWT check refuses it then anyway. */
  revoked: Record<string, number>;
}

/** Opens the list in `file` (null = memory only). An unreadable list ends every earlier session rather than forgetting revocations. */
export function openSessionRevocations(
  file: string | null,
  logger?: Logger,
  now: () => number = Date.now,
): SessionRevocations {
  const nowSeconds = () => Math.floor(now() / 1000);
  let state: RevocationFile = { not_before: 0, revoked: {} };
  if (file) {
    try {
      const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as RevocationFile;
      if (typeof parsed.not_before !== 'number' || typeof parsed.revoked !== 'object' || parsed.revoked === null)
        throw new Error('unexpected content');
      state = parsed;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        logger?.error(
          `signed-out sessions list ${file} could not be read (${errorMessage(err)}); every earlier session is signed out`,
        );
        state = { not_before: nowSeconds(), revoked: {} };
        writeFileAtomicSync(file, JSON.stringify(state), { mode: 0o600 });
      }
    }
  }

  return {
    revoke(sessionId, expiresAtSeconds) {
      const t = nowSeconds();
      const revoked = Object.fromEntries(Object.entries(state.revoked).filter(([, exp]) => exp > t));
      revoked[sessionId] = expiresAtSeconds;
      state = { ...state, revoked };
      if (file) writeFileAtomicSync(file, JSON.stringify(state), { mode: 0o600 });
    },
    isRevoked(sessionId, issuedAtSeconds) {
      return issuedAtSeconds < state.not_before || Object.hasOwn(state.revoked, sessionId);
    },
  };
}
