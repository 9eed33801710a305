import { findIdentifiers, guessLanguage, isContentWord, stem, tokenize, type Identifier } from './text-features.js';

/** One document as the learner reads it: names, not ids, and whether it carries the target label. */
export interface LearnDocument {
  id: number;
  title: string;
  content: string;
  correspondent: string | null;
  document_type: string | null;
  positive: boolean;
}

// A phrase of two words is kept as one number: first word's id × 2^26 + second's (ids stay below 2^26).
const PAIR = 2 ** 26;
export const pairKey = (a: number, b: number): number => a * PAIR + b;
export const pairWords = (key: number): [number, number] => [Math.floor(key / PAIR), key % PAIR];

/**
 * What the learner keeps of each document once its text is read: the ids of its distinct words, of its
 * two-word phrases, of its identifiers, and its correspondent and type. The text itself is dropped, so
 * memory grows with the words of a document (bounded by MAX_WORDS), never with its length.
 */
export class FeatureIndex {
  readonly ids: number[] = [];
  readonly titles: string[] = [];
  readonly positive: boolean[] = [];
  readonly docWords: Uint32Array[] = [];
  readonly docPairs: Float64Array[] = [];
  readonly docIdentifiers: Uint32Array[] = [];
  /** Index into `correspondents` / `documentTypes`, -1 for none. */
  readonly docCorrespondent: number[] = [];
  readonly docType: number[] = [];

  readonly words: string[] = [];
  readonly wordStem: number[] = [];
  readonly wordDfAll: number[] = [];
  readonly wordDfPos: number[] = [];
  readonly stems: string[] = [];
  readonly identifiers: Identifier[] = [];
  readonly correspondents: string[] = [];
  readonly documentTypes: string[] = [];
  /** Two-word phrases of the labelled documents only, by how many of them hold each. */
  readonly pairDfPos = new Map<number, number>();

  private readonly wordIds = new Map<string, number>();
  private readonly stemIds = new Map<string, number>();
  private readonly identifierIds = new Map<string, number>();
  private readonly correspondentIds = new Map<string, number>();
  private readonly typeIds = new Map<string, number>();

  get size(): number {
    return this.ids.length;
  }

  get positives(): number {
    return this.positive.reduce((n, p) => n + (p ? 1 : 0), 0);
  }

  add(doc: LearnDocument): void {
    const tokens = tokenize(doc.content);
    const language = guessLanguage(tokens);
    const words = new Set<number>();
    const pairs = new Set<number>();
    let previous = -1;
    for (const token of tokens) {
      if (!isContentWord(token.word)) {
        previous = -1;
        continue;
      }
      const id = this.wordId(token.word, language);
      words.add(id);
      if (previous >= 0 && token.joined && previous !== id) pairs.add(pairKey(previous, id));
      previous = id;
    }
    const wordList = Uint32Array.from(words).sort();
    for (const id of wordList) {
      this.wordDfAll[id]++;
      if (doc.positive) this.wordDfPos[id]++;
    }
    const pairList = Float64Array.from(pairs).sort();
    if (doc.positive) for (const key of pairList) this.pairDfPos.set(key, (this.pairDfPos.get(key) ?? 0) + 1);
    const identifiers = findIdentifiers(doc.content).map((found) => this.identifierId(found));

    this.ids.push(doc.id);
    this.titles.push(doc.title);
    this.positive.push(doc.positive);
    this.docWords.push(wordList);
    this.docPairs.push(pairList);
    this.docIdentifiers.push(Uint32Array.from(new Set(identifiers)).sort());
    this.docCorrespondent.push(named(this.correspondentIds, this.correspondents, doc.correspondent));
    this.docType.push(named(this.typeIds, this.documentTypes, doc.document_type));
  }

  /**
   * The same documents with other labels (one per document, in reading order): a second label of the same
   * archive needs no second read of its text.
   */
  relabel(positive: readonly boolean[]): void {
    this.positive.splice(0, this.positive.length, ...positive);
    this.wordDfPos.fill(0);
    this.pairDfPos.clear();
    this.docWords.forEach((words, d) => {
      if (!positive[d]) return;
      for (const id of words) this.wordDfPos[id]++;
      for (const key of this.docPairs[d]) this.pairDfPos.set(key, (this.pairDfPos.get(key) ?? 0) + 1);
    });
  }

  private wordId(word: string, language: 'de' | 'en'): number {
    let id = this.wordIds.get(word);
    if (id !== undefined) return id;
    id = this.words.length;
    this.wordIds.set(word, id);
    this.words.push(word);
    this.wordDfAll.push(0);
    this.wordDfPos.push(0);
    const root = stem(word, language);
    let stemId = this.stemIds.get(root);
    if (stemId === undefined) {
      stemId = this.stems.length;
      this.stemIds.set(root, stemId);
      this.stems.push(root);
    }
    this.wordStem.push(stemId);
    return id;
  }

  private identifierId(found: Identifier): number {
    let id = this.identifierIds.get(found.value);
    if (id === undefined) {
      id = this.identifiers.length;
      this.identifierIds.set(found.value, id);
      this.identifiers.push(found);
    }
    return id;
  }
}

function named(ids: Map<string, number>, names: string[], name: string | null): number {
  if (name === null) return -1;
  let id = ids.get(name);
  if (id === undefined) {
    id = names.length;
    ids.set(name, id);
    names.push(name);
  }
  return id;
}
