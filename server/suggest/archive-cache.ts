import { TextDictionary, type DocText } from './text-dictionary.js';

/**
 * What the cache may hold, counted as V8 stores it: texts at one byte a character (two when a text holds a
 * character beyond Latin-1), the word, phrase and identifier ids, the dictionary's words. 64 MiB hold the
 * texts of some 20,000 documents of 3,000 characters; past it, documents are read again on every request.
 */
export const CACHE_BYTES = 64 * 2 ** 20;

/** Per cached document besides its text and ids: the entry, three typed arrays, the map's slot. */
const ENTRY_OVERHEAD = 600;
/** Per dictionary word besides its characters: the string, the map entry, the array slots. */
const WORD_OVERHEAD = 120;
/** V8 keeps a text in two bytes a character once one character is past Latin-1. */
const BEYOND_LATIN1 = /[\u0100-\uffff]/;

export interface CachedText {
  /** The document's `modified` when it was read: a document with another is read again. */
  modified: string;
  text: DocText;
  /** The text as rules see it (cut to the content limit), for judging candidates with the engine. */
  content: string;
  bytes: number;
}

export interface CacheFigures {
  /** Documents whose text was served from the cache / read from the dms during the last request. */
  hits: number;
  misses: number;
  entries: number;
  bytes: number;
}

/**
 * The text of one archive's documents between suggestions, keyed by document id and `modified` (Paperless sets
 * `modified` on every save, content edits included), so a further label of an unchanged archive reads no text
 * again. Bounded by `budget` bytes; one archive at a time (the dms's URL), since the service talks to one.
 */
export class ArchiveTextCache {
  dictionary = new TextDictionary();
  private entries = new Map<number, CachedText>();
  private source: string | null = null;
  private used = 0;
  /** Entries replaced or dropped since the dictionary began: their words linger in it. */
  private stale = 0;
  hits = 0;
  misses = 0;

  constructor(readonly budget = CACHE_BYTES) {}

  /**
   * Starts a request over the archive at `source`. Another dms, or a dictionary holding more words of changed
   * documents than the cache holds documents, starts afresh (the next read is cold).
   */
  begin(source: string): void {
    if (source !== this.source || this.entries.size === 0 || this.stale > Math.max(1000, this.entries.size))
      this.clear();
    this.source = source;
    this.hits = 0;
    this.misses = 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cached text of the document when it is unchanged since it was read. */
  get(id: number, modified: string): CachedText | undefined {
    const entry = this.entries.get(id);
    if (entry?.modified === modified) {
      this.hits++;
      return entry;
    }
    this.misses++;
    return undefined;
  }

  /** Keeps a document read just now, when it fits the budget (else an older copy of it is dropped). */
  put(id: number, modified: string, content: string, text: DocText): void {
    this.drop(id);
    const bytes =
      ENTRY_OVERHEAD +
      content.length * (BEYOND_LATIN1.test(content) ? 2 : 1) +
      text.words.byteLength +
      text.pairs.byteLength +
      text.identifiers.byteLength;
    if (this.used + bytes + this.dictionaryBytes() > this.budget) return;
    this.entries.set(id, { modified, text, content, bytes });
    this.used += bytes;
  }

  /** Drops the documents the dms no longer lists for the token (deleted, or no longer visible). */
  retain(listed: ReadonlySet<number>): void {
    for (const id of [...this.entries.keys()]) if (!listed.has(id)) this.drop(id);
  }

  /** After a request: a dictionary that leaves no room for texts is dropped with them. */
  settle(): void {
    if (this.dictionaryBytes() > this.budget / 2) this.clear();
  }

  /** The cached text as rules see it, without counting a hit (for judging, after the read counted it). */
  content(id: number, modified: string | null): string | undefined {
    const entry = this.entries.get(id);
    return entry && entry.modified === modified ? entry.content : undefined;
  }

  figures(): CacheFigures {
    return {
      hits: this.hits,
      misses: this.misses,
      entries: this.entries.size,
      bytes: this.used + this.dictionaryBytes(),
    };
  }

  clear(): void {
    this.dictionary = new TextDictionary();
    this.entries = new Map();
    this.used = 0;
    this.stale = 0;
  }

  private drop(id: number): void {
    const old = this.entries.get(id);
    if (!old) return;
    this.entries.delete(id);
    this.used -= old.bytes;
    this.stale++;
  }

  private dictionaryBytes(): number {
    const d = this.dictionary;
    return d.chars + (d.words.length + d.stems.length + d.identifiers.length) * WORD_OVERHEAD;
  }
}
