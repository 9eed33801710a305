import { bitsWhere, countAnd, emptyBits, setBit, type Bits } from './bitset.js';
import type { FeatureIndex } from './feature-index.js';
import { pairWords } from './text-dictionary.js';

/** What a condition tests, in the rule language's terms (rule-yaml.ts writes it). */
export type FeatureKind = 'words' | 'phrase' | 'part_word' | 'fuzzy' | 'identifier' | 'correspondent' | 'document_type';

export interface Feature {
  kind: FeatureKind;
  /** Words for `any_word` (the forms of one stem), or the one phrase, part-word, identifier or name. */
  values: string[];
  /** For a person: `words rechnung/rechnungen`, `IBAN DE89…`. */
  label: string;
}

/** The archive as the learner searches it: candidate conditions and, for each, the documents it holds for. */
export interface Dataset {
  n: number;
  ids: readonly number[];
  titles: readonly string[];
  positive: Bits;
  features: Feature[];
  bits: Bits[];
}

export interface CandidateOptions {
  /** Conditions on these fields are left out: the target itself must not explain the target. */
  exclude: ReadonlySet<'correspondent' | 'document_type'>;
  /**
   * Only these documents (by position) choose the conditions: a cross-validation fold's training documents, so
   * the held-out ones never pick what they are judged by. Every document still gets its bits. Default: all.
   */
  train?: (d: number) => boolean;
}

/** How often words and phrases hold, counted over the documents that choose the conditions. */
interface Counts {
  positives: number;
  n: number;
  wordDfAll: ArrayLike<number>;
  wordDfPos: ArrayLike<number>;
  pairDfPos: ReadonlyMap<number, number>;
}

function countsOver(index: FeatureIndex, train: ((d: number) => boolean) | undefined): Counts {
  if (!train)
    return {
      positives: index.positives,
      n: index.size,
      wordDfAll: index.wordDfAll,
      wordDfPos: index.wordDfPos,
      pairDfPos: index.pairDfPos,
    };
  const wordDfAll = new Uint32Array(index.words.length);
  const wordDfPos = new Uint32Array(index.words.length);
  const pairDfPos = new Map<number, number>();
  let positives = 0;
  let n = 0;
  for (let d = 0; d < index.size; d++) {
    if (!train(d)) continue;
    n++;
    const positive = index.positive[d];
    if (positive) positives++;
    for (const w of index.docWords[d]) {
      wordDfAll[w]++;
      if (positive) wordDfPos[w]++;
    }
    if (positive) for (const key of index.docPairs[d]) pairDfPos.set(key, (pairDfPos.get(key) ?? 0) + 1);
  }
  return { positives, n, wordDfAll, wordDfPos, pairDfPos };
}

const MAX_FORMS = 6;
const STEMS_KEPT = 250;
const PHRASES_KEPT = 200;
const PART_WORD_STEMS = 60;
const FUZZY_STEMS = 60;
const FEATURES_KEPT = 200;

/** FOIL's information gain of a condition holding for p labelled and q other documents, against the base rate. */
export function foilScore(p: number, q: number, base: number): number {
  if (p === 0) return 0;
  return p * (Math.log2((p + 1) / (p + q + 2)) - Math.log2(base));
}

/**
 * The conditions worth trying: words (a stem's forms), two-word phrases, part-words (a stem inside longer
 * words, as German compounds hold it), identifiers, correspondents and document types that hold for far more
 * labelled documents than the base rate predicts. Deterministic: ties are broken by the condition's text.
 */
export function buildDataset(index: FeatureIndex, options: CandidateOptions): Dataset {
  const n = index.size;
  const train = options.train;
  const counts = countsOver(index, train);
  const positives = counts.positives;
  const base = Math.max(positives, 1) / Math.max(counts.n, 1);
  const minSupport = Math.max(2, Math.ceil(0.03 * positives));
  const features: Feature[] = [];
  const byWord = new Map<number, number[]>();
  const byPair = new Map<number, number>();
  const byIdentifier = new Map<number, number>();
  const byCorrespondent = new Map<number, number>();
  const byType = new Map<number, number>();
  const addFeature = (feature: Feature): number => features.push(feature) - 1;
  const link = (word: number, feature: number) => byWord.set(word, [...(byWord.get(word) ?? []), feature]);

  // Stems, scored by their forms' summed counts (an estimate; exact counts come from the bitsets below). Ids are
  // numbered in reading order, which a cache changes, so every tie is broken by the text instead.
  const forms = new Map<number, number[]>();
  for (let word = 0; word < index.words.length; word++) {
    if (!counts.wordDfPos[word]) continue;
    const stemId = index.stemOf(word);
    const known = forms.get(stemId);
    if (known) known.push(word);
    else forms.set(stemId, [word]);
  }
  const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const stems = [...forms.entries()]
    .map(([stemId, words]) => {
      const top = [...words]
        .sort((a, b) => counts.wordDfAll[b] - counts.wordDfAll[a] || byText(index.words[a], index.words[b]))
        .slice(0, MAX_FORMS);
      const p = Math.min(positives, sum(top.map((w) => counts.wordDfPos[w])));
      const all = sum(top.map((w) => counts.wordDfAll[w]));
      return { stemId, top, p, score: foilScore(p, Math.max(0, all - p), base) };
    })
    .filter((s) => s.p >= minSupport && s.score > 0)
    .sort((a, b) => b.score - a.score || byText(index.stems[a.stemId], index.stems[b.stemId]))
    .slice(0, STEMS_KEPT);
  for (const s of stems) {
    const words = s.top.map((w) => index.words[w]).sort();
    const feature = addFeature({ kind: 'words', values: words, label: `word ${words.join('/')}` });
    for (const w of s.top) link(w, feature);
  }

  // Part-words: a stem of five letters or more inside other words ("versicherung" in "kfz-versicherungsschein").
  for (const s of stems.slice(0, PART_WORD_STEMS)) {
    const root = index.stems[s.stemId];
    if (root.length < 5 || !/^\p{L}+$/u.test(root)) continue;
    // `matches` finds the root anywhere, so the condition holds for every word that contains it.
    const holding = wordsContaining(index, root);
    if (!holding.some((id) => !s.top.includes(id))) continue;
    const feature = addFeature({ kind: 'part_word', values: [root], label: `part-word ${root}` });
    for (const w of holding) link(w, feature);
  }

  // Long words with OCR slips: `fuzzy` (partial ratio ≥ 90) forgives one swapped pair of letters from ten letters on.
  for (const s of stems.slice(0, FUZZY_STEMS)) {
    const word = index.words[s.top[0]];
    if (word.length < 10 || !/^\p{L}+$/u.test(word)) continue;
    const holding = new Set<number>();
    for (const variant of swaps(word)) {
      const id = index.dictionary.idOf(variant);
      if (id !== undefined && index.holds(id)) holding.add(id);
    }
    if (holding.size === 0) continue;
    for (const id of wordsContaining(index, word)) holding.add(id);
    const feature = addFeature({ kind: 'fuzzy', values: [word], label: `fuzzy ${word}` });
    for (const w of holding) link(w, feature);
  }

  const phraseText = (key: number) =>
    pairWords(key)
      .map((w) => index.words[w])
      .join(' ');
  const phrases = [...counts.pairDfPos.entries()]
    .filter(([, p]) => p >= minSupport)
    .map(([key, p]) => ({ key, p, text: phraseText(key) }))
    .sort((a, b) => b.p - a.p || byText(a.text, b.text))
    .slice(0, PHRASES_KEPT);
  for (const { key, text } of phrases)
    byPair.set(key, addFeature({ kind: 'phrase', values: [text], label: `phrase "${text}"` }));

  const identifierPos = new Map<number, number>();
  index.docIdentifiers.forEach((ids, d) => {
    if (index.positive[d] && (!train || train(d)))
      for (const id of ids) identifierPos.set(id, (identifierPos.get(id) ?? 0) + 1);
  });
  const identifierText = (id: number) => index.identifiers[id].value;
  for (const [id, p] of [...identifierPos.entries()].sort((a, b) =>
    byText(identifierText(a[0]), identifierText(b[0])),
  )) {
    if (p < minSupport) continue;
    const found = index.identifiers[id];
    byIdentifier.set(
      id,
      addFeature({ kind: 'identifier', values: [found.value], label: `${found.kind} ${found.value}` }),
    );
  }
  if (!options.exclude.has('correspondent'))
    index.correspondents.forEach((name, id) =>
      byCorrespondent.set(id, addFeature({ kind: 'correspondent', values: [name], label: `correspondent ${name}` })),
    );
  if (!options.exclude.has('document_type'))
    index.documentTypes.forEach((name, id) =>
      byType.set(id, addFeature({ kind: 'document_type', values: [name], label: `document type ${name}` })),
    );

  const bits = features.map(() => emptyBits(n));
  for (let d = 0; d < n; d++) {
    for (const w of index.docWords[d]) for (const f of byWord.get(w) ?? []) setBit(bits[f], d);
    for (const key of index.docPairs[d]) {
      const f = byPair.get(key);
      if (f !== undefined) setBit(bits[f], d);
    }
    for (const id of index.docIdentifiers[d]) {
      const f = byIdentifier.get(id);
      if (f !== undefined) setBit(bits[f], d);
    }
    const c = byCorrespondent.get(index.docCorrespondent[d]);
    if (c !== undefined) setBit(bits[c], d);
    const t = byType.get(index.docType[d]);
    if (t !== undefined) setBit(bits[t], d);
  }

  const positive = bitsWhere(n, (d) => index.positive[d]);
  const chosenBy = train ? bitsWhere(n, train) : bitsWhere(n, () => true);
  const ranked = features
    .map((_, i) => {
      const p = countAnd(bits[i], positive, chosenBy);
      const all = countAnd(bits[i], chosenBy);
      return { i, p, score: foilScore(p, all - p, base) };
    })
    .filter((r) => r.p >= minSupport && r.score > 0)
    .sort((a, b) => b.score - a.score || features[a.i].label.localeCompare(features[b.i].label))
    .slice(0, FEATURES_KEPT);
  return {
    n,
    ids: index.ids,
    titles: index.titles,
    positive,
    features: ranked.map((r) => features[r.i]),
    bits: ranked.map((r) => bits[r.i]),
  };
}

const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);

// The archive's words holding a part-word, per index: the whole archive and each cross-validation fold ask for
// mostly the same ones, and each answer scans every distinct word of the archive.
// A document added since starts the memo afresh. Only words some document of the index holds count: the
// dictionary may keep words of documents changed since (archive-cache.ts).
const containing = new WeakMap<FeatureIndex, { words: number; docs: number; ids: Map<string, number[]> }>();

function wordsContaining(index: FeatureIndex, part: string): number[] {
  let memo = containing.get(index);
  if (memo?.words !== index.words.length || memo.docs !== index.size)
    containing.set(index, (memo = { words: index.words.length, docs: index.size, ids: new Map() }));
  const known = memo.ids;
  let ids = known.get(part);
  if (!ids) {
    ids = [];
    for (let id = 0; id < index.words.length; id++) if (index.holds(id) && index.words[id].includes(part)) ids.push(id);
    known.set(part, ids);
  }
  return ids;
}

/** The word with each pair of neighbouring letters swapped. */
function swaps(word: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < word.length; i++)
    if (word[i] !== word[i + 1]) out.push(word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2));
  return out;
}
