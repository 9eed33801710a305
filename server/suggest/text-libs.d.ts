// The two language packages ship no types; only what the learner calls is declared.
declare module 'snowball-stemmers' {
  export interface Stemmer {
    stem(word: string): string;
  }
  export function newStemmer(algorithm: string): Stemmer;
}

declare module 'stopwords-iso' {
  const lists: Record<string, string[]>;
  export default lists;
}
