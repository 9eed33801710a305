import crypto from 'node:crypto';
import { ForbiddenError, UnauthorizedError } from '../app-errors.js';
import { isLoopbackAddress } from './loopback.js';

/** One-time tokens that let the desktop window sign in without the admin password. */
export interface DesktopSignIn {
  /** A fresh random token, valid once, for a short time. */
  issue(): string;
  /** True exactly once for a token issued here and not yet expired; false for anything else. */
  consume(token: string | undefined): boolean;
}

export interface DesktopSignInOptions {
  ttlMs?: number;
  now?: () => number;
  /** Outstanding tokens kept at most; the oldest are dropped first (main issues one per window). */
  maxOutstanding?: number;
}

// Only the digest is kept and looked up, so a lookup's timing says nothing about a token's bytes.
const digest = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

export function createDesktopSignIn(options: DesktopSignInOptions = {}): DesktopSignIn {
  const ttlMs = options.ttlMs ?? 60_000;
  const now = options.now ?? Date.now;
  const maxOutstanding = options.maxOutstanding ?? 8;
  const expiries = new Map<string, number>();

  const prune = () => {
    const t = now();
    for (const [key, expiry] of expiries) if (expiry <= t) expiries.delete(key);
    while (expiries.size >= maxOutstanding) expiries.delete(expiries.keys().next().value as string);
  };

  return {
    issue() {
      prune();
      const token = crypto.randomBytes(32).toString('base64url');
      expiries.set(digest(token), now() + ttlMs);
      return token;
    },
    consume(token) {
      if (!token || token.length > 200) return false;
      const key = digest(token);
      const expiry = expiries.get(key);
      expiries.delete(key);
      return expiry !== undefined && expiry > now();
    },
  };
}

/**
 * Checks that a desktop sign-in comes from this computer and spends its one-time token; the LAN still
 * needs the admin login. A caller whose address is the socket's own local address is this computer too
 * (SVC_HOST set to a LAN address).
 */
export function redeemDesktopToken(
  signIn: DesktopSignIn,
  token: string | undefined,
  caller: { remote?: string; local?: string },
): void {
  const remote = caller.remote ?? '';
  if (!isLoopbackAddress(remote) && remote !== caller.local) {
    throw new ForbiddenError('The desktop sign-in works only from this computer; sign in with the admin account.');
  }
  if (!signIn.consume(token)) {
    throw new UnauthorizedError(
      'This desktop sign-in link is unknown, expired or already used; reopen the window from the app.',
    );
  }
}
