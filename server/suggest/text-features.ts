import { newStemmer, type Stemmer } from 'snowball-stemmers';
import stopwordLists from 'stopwords-iso' with { type: 'json' };

/** The languages the learner stems and drops stop words for; documents in others are taken word for word. */
export type Language = 'de' | 'en';

const STOPWORDS: Record<Language, ReadonlySet<string>> = {
  de: new Set(stopwordLists.de),
  en: new Set(stopwordLists.en),
};
const STEMMERS: Record<Language, Stemmer> = { de: newStemmer('german'), en: newStemmer('english') };

/** At most this many words of a document are read for learning (the first ones: letterheads are at the top). */
export const MAX_WORDS = 2000;

/** One word as it occurs, lower-cased, and whether only white space separates it from the word before. */
export interface Token {
  word: string;
  /** Joined to the previous token by white space alone (so `"prev word"` is a phrase the engine finds). */
  joined: boolean;
}

// The engine's own word characters (word-match.ts): a word found here is one `any_word` finds as a whole word.
// Intl.Segmenter's word boundaries were measured 60 times slower on mail text (13.4 s against 0.22 s for 600
// SpamAssassin messages) and disagree with the engine on "3.5" or "don't"; docs/suggestions.md.
const WORD = /[\p{L}\p{N}_]+/gu;

/** The document's words as the engine sees them, lower-cased, with phrase joints. */
export function tokenize(text: string, limit = MAX_WORDS): Token[] {
  const tokens: Token[] = [];
  let end = -1;
  for (const match of text.matchAll(WORD)) {
    const gap = end < 0 ? '' : text.slice(end, match.index);
    tokens.push({ word: match[0].toLowerCase(), joined: end >= 0 && /^\s+$/u.test(gap) });
    end = match.index + match[0].length;
    if (tokens.length >= limit) break;
  }
  return tokens;
}

/** Whether the engine's whole-word match finds this word as the segmenter gave it. */
export function isPlainWord(word: string): boolean {
  return /^[\p{L}\p{N}_]+$/u.test(word);
}

/** The language with more stop words among the first words (ties: German, the archive's usual language). */
export function guessLanguage(tokens: readonly Token[]): Language {
  let de = 0;
  let en = 0;
  for (const { word } of tokens.slice(0, 300)) {
    if (STOPWORDS.de.has(word)) de++;
    if (STOPWORDS.en.has(word)) en++;
  }
  return en > de ? 'en' : 'de';
}

/** A word worth a condition: letters (maybe with digits), not a stop word of either language, three letters or more. */
export function isContentWord(word: string): boolean {
  if (word.length < 3 || word.length > 40 || !isPlainWord(word)) return false;
  if (!/\p{L}/u.test(word)) return false;
  return !STOPWORDS.de.has(word) && !STOPWORDS.en.has(word);
}

export function stem(word: string, language: Language): string {
  return STEMMERS[language].stem(word);
}

/** A sender's identifier found in the text, as printed (so `contains` finds it again). */
export interface Identifier {
  kind: 'iban' | 'vat_id' | 'customer_number';
  value: string;
}

const IBAN = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}(?: ?[A-Z0-9]{1,3})?\b/g;
const VAT_ID = /\b(?:DE ?\d{9}|ATU ?\d{8}|GB ?\d{9}|FR ?[A-Z0-9]{2} ?\d{9}|NL ?\d{9}B\d{2}|LU ?\d{8})\b/g;
const CUSTOMER_NUMBER =
  /(?:Kundennummer|Kunden-?Nr\.?|Kd\.?-?Nr\.?|Vertragsnummer|Vertragskonto|Versicherungsnummer|Steuernummer|Customer (?:No\.?|number|ID)|Account (?:No\.?|number))\s*:?\s*([A-Z0-9][A-Z0-9/-]{3,24})/gi;

/** IBANs, VAT ids and customer or contract numbers printed in the text; each distinct value once. */
export function findIdentifiers(text: string): Identifier[] {
  const found = new Map<string, Identifier>();
  const add = (kind: Identifier['kind'], value: string) => {
    if (!/\d/.test(value) || found.has(value)) return;
    found.set(value, { kind, value });
  };
  for (const m of text.matchAll(IBAN)) add('iban', m[0]);
  for (const m of text.matchAll(VAT_ID)) add('vat_id', m[0]);
  for (const m of text.matchAll(CUSTOMER_NUMBER)) add('customer_number', m[1]);
  return [...found.values()];
}
