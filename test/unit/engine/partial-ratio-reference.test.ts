import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fuzzyClean, fuzzyCleanText, partialRatio, type FuzzyHit } from '../../../server/engine/word-match.js';

// The straightforward partial ratio (a full LCS table per window, fresh arrays per call): the reference the
// engine's scratch-reusing, bit-parallel one must agree with exactly, score, index and length.
function referenceLcs(a: Uint16Array, b: Uint16Array): number {
  const row = new Int32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = 0;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = a[i - 1] === b[j - 1] ? diagonal + 1 : Math.max(above, row[j - 1]);
      diagonal = above;
    }
  }
  return row[b.length];
}

function referenceRatio(a: Uint16Array, b: Uint16Array): number {
  const total = a.length + b.length;
  return total === 0 ? 100 : (200 * referenceLcs(a, b)) / total;
}

function codeUnits(text: string): Uint16Array {
  const out = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

function referencePartialRatio(needleText: string, hayText: string, cutoff = 90): FuzzyHit | null {
  let needle = codeUnits(needleText);
  let hay = codeUnits(hayText);
  if (needle.length > hay.length) [needle, hay] = [hay, needle];
  const m = needle.length;
  if (m === 0) return null;
  let best: FuzzyHit | null = null;
  const consider = (start: number, end: number) => {
    const score = referenceRatio(needle, hay.subarray(start, end));
    if (score >= cutoff && (!best || score > best.score)) best = { score, index: start, length: end - start };
  };
  for (let k = 1; k < m && k <= hay.length; k++) {
    consider(0, k);
    consider(hay.length - k, hay.length);
  }
  for (let i = m - 1; i < hay.length; i++) {
    consider(i - m + 1, i + 1);
    if ((best as FuzzyHit | null)?.score === 100) break;
  }
  return best;
}

/** mulberry32: the same inputs on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const alphabets = ['ab', 'abc ', 'stadwerkmünch ', 'äöüßéİı😀 ab', 'abcdefghijklmnopqrstuvwxyz0123456789 '];

function randomText(next: () => number, alphabet: string, length: number): string {
  const chars = Array.from(alphabet);
  let out = '';
  for (let i = 0; i < length; i++) out += chars[Math.floor(next() * chars.length)];
  return out;
}

/** A copy of `text` with a few characters changed, dropped or added, so that near misses and hits both occur. */
function mutate(next: () => number, text: string, alphabet: string): string {
  const chars = Array.from(text);
  const edits = Math.floor(next() * 4);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(next() * (chars.length + 1));
    const c = randomText(next, alphabet, 1);
    const kind = Math.floor(next() * 3);
    if (kind === 0) chars.splice(at, 1, c);
    else if (kind === 1) chars.splice(at, 1);
    else chars.splice(at, 0, c);
  }
  return chars.join('');
}

// Needle lengths at the bit-parallel code's word boundaries (one, two and three 32-bit words, full and partial last
// words) and short ones; haystacks shorter than the needle (the two swap), of about its length, and long.
const NEEDLE_LENGTHS = [0, 1, 2, 5, 12, 31, 32, 33, 64, 65, 90];
const HAY_LENGTHS: Array<(next: () => number, needle: number) => number> = [
  (next) => Math.floor(next() * 20),
  (next, needle) => needle + Math.floor(next() * 8),
  (next) => 60 + Math.floor(next() * 100),
];
const CUTOFFS = (next: () => number) => [90, 90, 0, 50, 89.99, 100, 100 * (next() * 0.3 + 0.7)];

test('partial ratio agrees exactly with the reference on seeded random inputs', () => {
  const next = seeded(20261128);
  let hits = 0;
  let round = 0;
  // Every needle length with every alphabet and haystack size, with and without a near copy of the needle planted:
  // the cases a longer random sweep reaches, each at least once, at a tenth of its cost.
  for (const needleLength of NEEDLE_LENGTHS)
    for (const alphabet of alphabets)
      for (const hayLength of HAY_LENGTHS)
        for (const planted of [false, true]) {
          const needle = randomText(next, alphabet, needleLength);
          let hay = randomText(next, alphabet, hayLength(next, needleLength));
          if (planted && needle !== '') {
            const at = Math.floor(next() * (hay.length + 1));
            hay = hay.slice(0, at) + mutate(next, needle, alphabet) + hay.slice(at);
          }
          const cutoff = CUTOFFS(next)[round % 7];
          const expected = referencePartialRatio(needle, hay, cutoff);
          assert.deepEqual(
            partialRatio(needle, hay, cutoff),
            expected,
            `round ${round}: ${JSON.stringify([needle, hay, cutoff])}`,
          );
          if (expected && cutoff >= 90) hits++;
          round++;
        }
  // The inputs exercise the matching side too, not only the misses.
  assert.ok(hits > 40, `only ${hits} hits at a cutoff of 90 or more`);
});

const MANY_DISTINCT = Array.from({ length: 300 }, (_, i) => String.fromCharCode(0x4e00 + i)).join('');

test('partial ratio agrees with the reference at the edges', () => {
  const pairs: Array<[string, string, number?]> = [
    ['', ''],
    ['', 'abc'],
    ['abc', ''],
    ['a', 'a'],
    ['stadtwerke münchen gmbh', 'stadtwerke'],
    ['abcdefghij', 'abcdefghix', 90],
    ['abcdefghij', 'abcdefghix', 90.0001],
    ['x'.repeat(40) + 'y', 'x'.repeat(41), 97.56097560975611],
    ['😀😀 ab', 'xx 😀😀 ab yy'],
    ['İstanbul', 'istanbul'],
    ['a'.repeat(200), 'b'.repeat(50) + 'a'.repeat(199) + 'c'.repeat(50)],
    ['ab'.repeat(70), 'ba'.repeat(300)],
    // More distinct characters than the scratch tables start with: they grow.
    [MANY_DISTINCT, `xy${MANY_DISTINCT.slice(0, 150)}z${MANY_DISTINCT.slice(151)}xy`],
  ];
  for (const [needle, hay, cutoff] of pairs)
    assert.deepEqual(
      partialRatio(needle, hay, cutoff),
      referencePartialRatio(needle, hay, cutoff),
      JSON.stringify([needle, hay]),
    );
});

test('a long needle after a short one still finds its match (the scratch tables grow and reset)', () => {
  const long = 'lorem ipsum dolor sit amet consectetur '.repeat(5);
  assert.equal(partialRatio('ab', 'xxab')?.score, 100);
  assert.deepEqual(partialRatio(long, `xx ${long} yy`), { score: 100, index: 3, length: long.length });
  assert.equal(partialRatio('ab', 'xxcd'), null);
});

test('the remembered cleaned text is the cleaned text of the text asked for, per case mode', () => {
  const a = 'Stadtwerke München, GmbH!';
  const b = 'Rechnung: Nr. 12';
  assert.equal(fuzzyCleanText(a, false), fuzzyClean(a, false));
  assert.equal(fuzzyCleanText(a, true), fuzzyClean(a, true));
  assert.equal(fuzzyCleanText(a, false), 'stadtwerke münchen gmbh');
  assert.equal(fuzzyCleanText(b, false), 'rechnung nr 12');
  assert.equal(fuzzyCleanText(a, true), 'Stadtwerke München GmbH');
});
