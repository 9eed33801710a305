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

function lcsLength(a: Uint16Array, b: Uint16Array): number {
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

/** rapidfuzz's normalised Indel similarity, 0..100. */
function ratio(a: Uint16Array, b: Uint16Array): number {
  const total = a.length + b.length;
  return total === 0 ? 100 : (200 * lcsLength(a, b)) / total;
}

/** UTF-16 code units: OCR text has next to no characters outside the BMP, and units keep this loop cheap. */
function codeUnits(text: string): Uint16Array {
  const out = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

export interface FuzzyHit {
  score: number;
  /** Where the best window starts in the cleaned text, and its length. */
  index: number;
  length: number;
}

/**
 * rapidfuzz's partial_ratio: the best ratio of the shorter text against every window of the longer one of
 * the same length (and the shorter windows at either end). Windows whose characters could not reach the
 * cutoff are skipped by a sliding character count, so long documents stay cheap.
 */
export function partialRatio(needleText: string, hayText: string, cutoff = FUZZY_CUTOFF): FuzzyHit | null {
  let needle = codeUnits(needleText);
  let hay = codeUnits(hayText);
  if (needle.length > hay.length) [needle, hay] = [hay, needle];
  const m = needle.length;
  if (m === 0) return null;
  let best: FuzzyHit | null = null;
  const consider = (start: number, end: number) => {
    const score = ratio(needle, hay.subarray(start, end));
    if (score >= cutoff && (!best || score > best.score)) best = { score, index: start, length: end - start };
  };
  // Windows cut by the start or the end of the text.
  for (let k = 1; k < m && k <= hay.length; k++) {
    consider(0, k);
    consider(hay.length - k, hay.length);
  }
  // Each distinct needle character gets a slot; every other character is slot 0 and never counts.
  const slotOf = new Uint16Array(0x10000);
  let distinct = 0;
  for (const c of needle) if (slotOf[c] === 0) slotOf[c] = ++distinct;
  const want = new Int32Array(distinct + 1);
  for (const c of needle) want[slotOf[c]]++;
  const slots = new Uint16Array(hay.length);
  for (let i = 0; i < hay.length; i++) slots[i] = slotOf[hay[i]];
  const have = new Int32Array(want.length);
  let shared = 0;
  // A full window can reach the cutoff only if it shares at least this many characters with the needle.
  const needed = Math.ceil((cutoff * m) / 100);
  for (let i = 0; i < hay.length; i++) {
    const slot = slots[i];
    if (slot !== 0 && have[slot]++ < want[slot]) shared++;
    if (i >= m) {
      const out = slots[i - m];
      if (out !== 0 && --have[out] < want[out]) shared--;
    }
    if (i >= m - 1 && shared >= needed) {
      consider(i - m + 1, i + 1);
      if ((best as FuzzyHit | null)?.score === 100) break;
    }
  }
  return best;
}
