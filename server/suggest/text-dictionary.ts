import {
  findIdentifiers,
  guessLanguage,
  isContentWord,
  stem,
  tokenize,
  type Identifier,
  type Language,
} from './text-features.js';

// A phrase of two words is kept as one number: first word's id × 2^26 + second's (ids stay below 2^26).
const PAIR = 2 ** 26;
export const pairKey = (a: number, b: number): number => a * PAIR + b;
export const pairWords = (key: number): [number, number] => [Math.floor(key / PAIR), key % PAIR];

/** What is kept of one document's text: the ids of its distinct words, two-word phrases and identifiers. */
export interface DocText {
  language: Language;
  words: Uint32Array;
  pairs: Float64Array;
  identifiers: Uint32Array;
}

/**
 * The archive's words, their stems and the identifiers found in its texts, each numbered on first sight. Ids
 * depend on the order documents were read in, so nothing a suggestion offers may depend on them (ties are
 * broken by the text, a word's stem is chosen per request by feature-index.ts); that lets one dictionary
 * serve every request over the same archive (archive-cache.ts).
 */
export class TextDictionary {
  readonly words: string[] = [];
  readonly stems: string[] = [];
  readonly identifiers: Identifier[] = [];
  /** Characters held by `words`, `stems` and identifier values (for the cache's memory bound). */
  chars = 0;

  private readonly wordIds = new Map<string, number>();
  private readonly stemIds = new Map<string, number>();
  /** Each word's stem id by language, -1 until asked for. */
  private readonly wordStems: Record<Language, number[]> = { de: [], en: [] };
  private readonly identifierIds = new Map<string, number>();

  /** Tokenises, stems and numbers one document's text; the text itself is not kept. */
  read(content: string): DocText {
    const tokens = tokenize(content);
    const language = guessLanguage(tokens);
    const words = new Set<number>();
    const pairs = new Set<number>();
    let previous = -1;
    for (const token of tokens) {
      // Only content words get an id, so a known word needs no second look.
      let id = this.wordIds.get(token.word);
      if (id === undefined) {
        if (!isContentWord(token.word)) {
          previous = -1;
          continue;
        }
        id = this.wordId(token.word);
      }
      words.add(id);
      if (previous >= 0 && token.joined && previous !== id) pairs.add(pairKey(previous, id));
      previous = id;
    }
    const identifiers = findIdentifiers(content).map((found) => this.identifierId(found));
    return {
      language,
      words: Uint32Array.from(words).sort(),
      pairs: Float64Array.from(pairs).sort(),
      identifiers: Uint32Array.from(new Set(identifiers)).sort(),
    };
  }

  private wordId(word: string): number {
    let id = this.wordIds.get(word);
    if (id !== undefined) return id;
    id = this.words.length;
    this.wordIds.set(word, id);
    this.words.push(word);
    this.chars += word.length;
    this.wordStems.de.push(-1);
    this.wordStems.en.push(-1);
    return id;
  }

  /** The id of the word's stem in that language's Snowball stemmer (stemmed once, on first request). */
  stemId(word: number, language: Language): number {
    const known = this.wordStems[language][word];
    if (known >= 0) return known;
    const root = stem(this.words[word], language);
    let id = this.stemIds.get(root);
    if (id === undefined) {
      id = this.stems.length;
      this.stemIds.set(root, id);
      this.stems.push(root);
      this.chars += root.length;
    }
    this.wordStems[language][word] = id;
    return id;
  }

  /** The id of a word read before, if any. */
  idOf(word: string): number | undefined {
    return this.wordIds.get(word);
  }

  private identifierId(found: Identifier): number {
    let id = this.identifierIds.get(found.value);
    if (id === undefined) {
      id = this.identifiers.length;
      this.identifierIds.set(found.value, id);
      this.identifiers.push(found);
      this.chars += found.value.length;
    }
    return id;
  }
}
