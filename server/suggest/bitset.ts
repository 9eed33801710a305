/** Sets of documents as bit arrays: 10,000 documents are 1,250 bytes, and an intersection is a few hundred operations. */
export type Bits = Uint32Array;

export const emptyBits = (n: number): Bits => new Uint32Array(Math.ceil(n / 32));

export function setBit(bits: Bits, i: number): void {
  bits[i >>> 5] |= 1 << (i & 31);
}

export function hasBit(bits: Bits, i: number): boolean {
  return (bits[i >>> 5] & (1 << (i & 31))) !== 0;
}

function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

export function count(bits: Bits): number {
  let n = 0;
  for (let i = 0; i < bits.length; i++) n += popcount32(bits[i]);
  return n;
}

/** |a ∧ b|, and |a ∧ b ∧ c| when c is given, without allocating. */
export function countAnd(a: Bits, b: Bits, c?: Bits): number {
  let n = 0;
  if (c) for (let i = 0; i < a.length; i++) n += popcount32(a[i] & b[i] & c[i]);
  else for (let i = 0; i < a.length; i++) n += popcount32(a[i] & b[i]);
  return n;
}

/** |a ∧ ¬b ∧ c|. */
export function countAndNot(a: Bits, b: Bits, c: Bits): number {
  let n = 0;
  for (let i = 0; i < a.length; i++) n += popcount32(a[i] & ~b[i] & c[i]);
  return n;
}

export function and(a: Bits, b: Bits): Bits {
  const out = new Uint32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] & b[i];
  return out;
}

export function andNot(a: Bits, b: Bits): Bits {
  const out = new Uint32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] & ~b[i];
  return out;
}

export function or(a: Bits, b: Bits): Bits {
  const out = new Uint32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] | b[i];
  return out;
}

/** The documents 0..n-1 for which `keep` holds. */
export function bitsWhere(n: number, keep: (i: number) => boolean): Bits {
  const bits = emptyBits(n);
  for (let i = 0; i < n; i++) if (keep(i)) setBit(bits, i);
  return bits;
}
