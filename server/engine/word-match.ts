/**
 * Paperless's matching algorithms as condition operators (src/documents/matching.py): "any word",
 * "all words" (whole words, `"quoted phrases"` kept together) and "fuzzy" (rapidfuzz's partial_ratio ≥ 90
 * after dropping punctuation). Both scan untrusted text, so both stay linear or close to it.
 */

/** Paperless's score cutoff for fuzzy matching. */
export const FUZZY_CUTOFF = 90;
/** A fuzzy operand is a name or a phrase; longer ones would make each window's comparison costly. */
export const MAX_FUZZY_LENGTH = 200;

const WORD_CHAR = '[\\p{L}\\p{N}_]';

/** `'rechnung "credit note"'` → ["rechnung", "credit note"] (Paperless's _split_match); a list is taken as it is. */
export function splitWords(operand: string | string[]): string[] {
  if (Array.isArray(operand)) return operand.map((w) => w.trim().replace(/\s+/g, ' ')).filter((w) => w !== '');
  return [...operand.matchAll(/"([^"]+)"|(\S+)/g)]
    .map((m) => (m[1] ?? m[2]).trim().replace(/\s+/g, ' '))
    .filter((w) => w !== '');
}

/** A whole-word pattern for a word or phrase: no word character right before or after it; spaces match any run of white space. */
export function wordPattern(word: string, caseSensitive: boolean): RegExp {
  const body = word
    .split(' ')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('\\s+');
  return new RegExp(`(?<!${WORD_CHAR})${body}(?!${WORD_CHAR})`, caseSensitive ? 'u' : 'iu');
}

/** The words (of `words`) found in `text` as whole words. */
export function wordsFound(text: string, words: string[], caseSensitive: boolean): string[] {
  return words.filter((w) => wordPattern(w, caseSensitive).test(text));
}

/** Paperless removes everything but word characters and white space before comparing. */
export function fuzzyClean(text: string, caseSensitive: boolean): string {
  const cleaned = text.replace(/[^\p{L}\p{N}_\s]/gu, '');
  return caseSensitive ? cleaned : cleaned.toLowerCase();
}

/** The cleaned text last asked for, per case mode: a document's conditions clean the same text once, not once each. */
const lastCleaned: Array<{ text: string; cleaned: string } | undefined> = [undefined, undefined];

/** `fuzzyClean` of a haystack, remembering the last one: the fuzzy conditions of a rule set usually read the same text. */
export function fuzzyCleanText(text: string, caseSensitive: boolean): string {
  const slot = caseSensitive ? 1 : 0;
  const last = lastCleaned[slot];
  if (last?.text === text) return last.cleaned;
  const cleaned = fuzzyClean(text, caseSensitive);
  lastCleaned[slot] = { text, cleaned };
  return cleaned;
}

export interface FuzzyHit {
  score: number;
  /** Where the best window starts in the cleaned text, and its length. */
  index: number;
  length: number;
}

// Scratch kept between calls (each thread has its own module instance; partialRatio runs to its end without calling
// out, so no call sees another's). Grown to the shorter text, never shrunk: rules cap a fuzzy operand at
// MAX_FUZZY_LENGTH, so it stays a few KiB besides the fixed 128 KiB of `slotOf`.
/** Each distinct needle character's slot (1-based); 0 for every other character. Reset after each call. */
const slotOf = new Uint16Array(0x10000);
let want = new Int32Array(256);
let have = new Int32Array(256);
let haveTail = new Int32Array(256);
/** Per slot, the bit mask of the needle positions holding that character, `words` 32-bit words per slot. */
let masks = new Uint32Array(256);
/** The bit-parallel LCS state, one bit per needle position. */
let state = new Uint32Array(8);

/** A scratch array of at least `size` elements: `buffer` itself when it is long enough. */
function grow<T extends Int32Array | Uint32Array>(buffer: T, size: number, make: (length: number) => T): T {
  return buffer.length >= size ? buffer : make(Math.max(size, buffer.length * 2));
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/**
 * The longest common subsequence of the needle (as `masks`, `m` characters in `words` words) and
 * `hay[start, end)`, by the bit-parallel algorithm (Hyyrö): one pass over the window, `words` steps per character.
 */
function lcsLength(m: number, words: number, hay: string, start: number, end: number): number {
  state.fill(0xffffffff, 0, words);
  for (let j = start; j < end; j++) {
    const base = slotOf[hay.charCodeAt(j)] * words;
    let carry = 0;
    for (let w = 0; w < words; w++) {
      const v = state[w];
      const u = (v & masks[base + w]) >>> 0;
      const sum = v + u + carry;
      carry = sum > 0xffffffff ? 1 : 0;
      state[w] = sum | (v - u);
    }
  }
  let ones = 0;
  for (let w = 0; w < words; w++) {
    const bits = m - w * 32;
    ones += popcount(bits >= 32 ? state[w] : state[w] & (0xffffffff >>> (32 - bits)));
  }
  return m - ones;
}

/**
 * rapidfuzz's partial_ratio: the best ratio of the shorter text against every window of the longer one of
 * the same length (and the shorter windows at either end). A window is compared only when the characters it
 * shares with the needle could beat both the cutoff and the best so far (the ratio can only be lower), so
 * long documents stay cheap; a comparison is one bit-parallel pass over the window.
 */
export function partialRatio(needleText: string, hayText: string, cutoff = FUZZY_CUTOFF): FuzzyHit | null {
  let needle = needleText;
  let hay = hayText;
  if (needle.length > hay.length) [needle, hay] = [hay, needle];
  const m = needle.length;
  const n = hay.length;
  if (m === 0) return null;
  let distinct = 0;
  for (let i = 0; i < m; i++) {
    const c = needle.charCodeAt(i);
    if (slotOf[c] === 0) slotOf[c] = ++distinct;
  }
  const words = (m + 31) >>> 5;
  want = grow(want, distinct + 1, (l) => new Int32Array(l));
  have = grow(have, distinct + 1, (l) => new Int32Array(l));
  haveTail = grow(haveTail, distinct + 1, (l) => new Int32Array(l));
  masks = grow(masks, (distinct + 1) * words, (l) => new Uint32Array(l));
  state = grow(state, words, (l) => new Uint32Array(l));
  want.fill(0, 0, distinct + 1);
  masks.fill(0, 0, (distinct + 1) * words);
  for (let i = 0; i < m; i++) {
    const slot = slotOf[needle.charCodeAt(i)];
    want[slot]++;
    masks[slot * words + (i >>> 5)] |= 1 << (i & 31);
  }
  let bestScore = -1;
  let bestIndex = 0;
  let bestLength = 0;
  const consider = (start: number, end: number, shared: number) => {
    const total = m + (end - start);
    // The LCS is at most the shared characters, and the ratio grows with it.
    const bound = (200 * shared) / total;
    if (bound < cutoff || bound <= bestScore) return;
    const score = (200 * lcsLength(m, words, hay, start, end)) / total;
    if (score >= cutoff && score > bestScore) {
      bestScore = score;
      bestIndex = start;
      bestLength = end - start;
    }
  };
  // Windows cut by the start or the end of the text; the shared counts of both grow one character at a time.
  have.fill(0, 0, distinct + 1);
  haveTail.fill(0, 0, distinct + 1);
  let sharedHead = 0;
  let sharedTail = 0;
  for (let k = 1; k < m && k <= n; k++) {
    const head = slotOf[hay.charCodeAt(k - 1)];
    if (head !== 0 && have[head]++ < want[head]) sharedHead++;
    const back = slotOf[hay.charCodeAt(n - k)];
    if (back !== 0 && haveTail[back]++ < want[back]) sharedTail++;
    consider(0, k, sharedHead);
    consider(n - k, n, sharedTail);
  }
  // Full windows, slid one character at a time; one can reach the cutoff only if it shares this many characters.
  const needed = Math.ceil((cutoff * m) / 100);
  have.fill(0, 0, distinct + 1);
  let shared = 0;
  for (let i = 0; i < n; i++) {
    const slot = slotOf[hay.charCodeAt(i)];
    if (slot !== 0 && have[slot]++ < want[slot]) shared++;
    if (i >= m) {
      const out = slotOf[hay.charCodeAt(i - m)];
      if (out !== 0 && --have[out] < want[out]) shared--;
    }
    if (i >= m - 1 && shared >= needed) {
      consider(i - m + 1, i + 1, shared);
      if (bestScore === 100) break;
    }
  }
  for (let i = 0; i < m; i++) slotOf[needle.charCodeAt(i)] = 0;
  return bestScore < 0 ? null : { score: bestScore, index: bestIndex, length: bestLength };
}
