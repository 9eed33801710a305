import type { Identifier } from './text-features.js';
import { TextDictionary, type DocText } from './text-dictionary.js';

/** One document as the learner reads it: names, not ids, and whether it carries the target label. */
export interface LearnDocument {
  id: number;
  title: string;
  content: string;
  correspondent: string | null;
  document_type: string | null;
  positive: boolean;
}

/** The same without its text, which the dictionary has read already (`DocText`). */
export type LearnFields = Omit<LearnDocument, 'content'>;

/**
 * What the learner keeps of each document of one request: the ids of its distinct words, of its two-word
 * phrases, of its identifiers (numbered by a dictionary that may serve other requests too), and its
 * correspondent and type. The text itself is dropped, so memory grows with the words of a document (bounded
 * by MAX_WORDS), never with its length.
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

  /** By word id: in how many of this request's documents, in how many labelled ones (0 for words only others had). */
  readonly wordDfAll: number[] = [];
  readonly wordDfPos: number[] = [];
  readonly correspondents: string[] = [];
  readonly documentTypes: string[] = [];
  /** Two-word phrases of the labelled documents only, by how many of them hold each. */
  readonly pairDfPos = new Map<number, number>();

  /** By word id: in how many German documents (the rest are English). */
  private wordGerman = new Uint32Array(1024);
  private readonly correspondentIds = new Map<string, number>();
  private readonly typeIds = new Map<string, number>();

  constructor(readonly dictionary: TextDictionary = new TextDictionary()) {}

  get words(): readonly string[] {
    return this.dictionary.words;
  }

  get stems(): readonly string[] {
    return this.dictionary.stems;
  }

  get identifiers(): readonly Identifier[] {
    return this.dictionary.identifiers;
  }

  get size(): number {
    return this.ids.length;
  }

  get positives(): number {
    return this.positive.reduce((n, p) => n + (p ? 1 : 0), 0);
  }

  /** Reads the document's text with the dictionary and adds it. */
  add(doc: LearnDocument): void {
    this.addRead(doc, this.dictionary.read(doc.content));
  }

  /** Adds a document whose text the dictionary read before (a cached `DocText`). */
  addRead(doc: LearnFields, text: DocText): void {
    const n = this.dictionary.words.length;
    while (this.wordDfAll.length < n) {
      this.wordDfAll.push(0);
      this.wordDfPos.push(0);
    }
    if (this.wordGerman.length < n) {
      const grown = new Uint32Array(Math.max(n, this.wordGerman.length * 2));
      grown.set(this.wordGerman);
      this.wordGerman = grown;
    }
    const german = text.language === 'de';
    for (const id of text.words) {
      this.wordDfAll[id]++;
      if (doc.positive) this.wordDfPos[id]++;
      if (german) this.wordGerman[id]++;
    }
    if (doc.positive) for (const key of text.pairs) this.pairDfPos.set(key, (this.pairDfPos.get(key) ?? 0) + 1);

    this.ids.push(doc.id);
    this.titles.push(doc.title);
    this.positive.push(doc.positive);
    this.docWords.push(text.words);
    this.docPairs.push(text.pairs);
    this.docIdentifiers.push(text.identifiers);
    this.docCorrespondent.push(named(this.correspondentIds, this.correspondents, doc.correspondent));
    this.docType.push(named(this.typeIds, this.documentTypes, doc.document_type));
  }

  /**
   * The word's stem id in the language of most documents of this request that hold it (German on a tie). A
   * property of the documents, not of the order they were read in, so a cached dictionary gives the cold read's.
   */
  stemOf(word: number): number {
    return this.dictionary.stemId(word, 2 * this.wordGerman[word] >= this.wordDfAll[word] ? 'de' : 'en');
  }

  /** Whether a document of this request holds the word (the dictionary keeps words of documents since changed). */
  holds(word: number): boolean {
    return (this.wordDfAll[word] ?? 0) > 0;
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
