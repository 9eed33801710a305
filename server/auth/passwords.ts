import crypto from 'node:crypto';

// N=2^15 costs ~50 ms on a small machine: slow for brute force, fast enough for one admin login.
const N = 32768;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const MAX_MEM = 64 * 1024 * 1024;

/** `scrypt$N$r$p$<salt b64>$<hash b64>` */
export function hashPassword(password: string): string {
  const salt = crypto.randomBytes(16);
  const hash = crypto.scryptSync(password, salt, KEY_LENGTH, { N, r: R, p: P, maxmem: MAX_MEM });
  return ['scrypt', N, R, P, salt.toString('base64'), hash.toString('base64')].join('$');
}

export function verifyPassword(password: string, encoded: string): boolean {
  const parts = encoded.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], 'base64');
  const expected = Buffer.from(parts[5], 'base64');
  if (!n || !r || !p || expected.length === 0) return false;
  const actual = crypto.scryptSync(password, salt, expected.length, { N: n, r, p, maxmem: MAX_MEM });
  return crypto.timingSafeEqual(actual, expected);
}
