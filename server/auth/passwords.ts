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

interface Encoded {
  n: number;
  r: number;
  p: number;
  salt: Buffer;
  expected: Buffer;
}

function decode(encoded: string): Encoded | null {
  const parts = encoded.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], 'base64');
  const expected = Buffer.from(parts[5], 'base64');
  if (!n || !r || !p || expected.length === 0) return null;
  return { n, r, p, salt, expected };
}

/**
 * Sign-in's check: the hash runs on libuv's thread pool (async `crypto.scrypt`), so a flood of wrong
 * passwords does not stop the main thread from answering everything else (~50 ms per attempt).
 */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const parsed = decode(encoded);
  if (!parsed) return false;
  const actual = await new Promise<Buffer>((resolve, reject) => {
    crypto.scrypt(
      password,
      parsed.salt,
      parsed.expected.length,
      { N: parsed.n, r: parsed.r, p: parsed.p, maxmem: MAX_MEM },
      (err, key) => (err ? reject(err) : resolve(key)),
    );
  });
  return crypto.timingSafeEqual(actual, parsed.expected);
}

/** The same check on the calling thread, for the signed-in admin's settings changes (not reachable without a session). */
export function verifyPasswordSync(password: string, encoded: string): boolean {
  const parsed = decode(encoded);
  if (!parsed) return false;
  const actual = crypto.scryptSync(password, parsed.salt, parsed.expected.length, {
    N: parsed.n,
    r: parsed.r,
    p: parsed.p,
    maxmem: MAX_MEM,
  });
  return crypto.timingSafeEqual(actual, parsed.expected);
}
