import fs from 'node:fs';
import { writeFileAtomic } from '../../atomic-write.js';
import { createCoalescedWriter } from '../../coalesced-writer.js';
import { errorMessage } from '../../error-message.js';
import type { Logger } from '../../log.js';
import { moveAside } from '../../move-aside.js';

/** What the service's last write of a document was based on: when the document it read was last saved, and what it wrote. */
export interface OwnWrite {
  /** `modified` of the document as the rules read it (the dms's clock). */
  readAt: string;
  /** The fields the write changed. */
  fields: string[];
}

/** A failed run of one state of a document (`state` '' for a read that failed: no state was read). */
export interface Failure {
  state: string;
  message: string;
  attempts: number;
  at: number;
}

/** What the echo records hold per document; each unit (states, failures, loop breaker) keeps its own fields. */
export interface Entry {
  state: string | null;
  /** The state is what the service wrote (not only a state it handled without writing). */
  own: boolean;
  write?: OwnWrite;
  failure?: Failure;
  /** Times of the service's writes within the loop window. */
  writes: number[];
  /** The `added` time of the document whose `added` arrival was handled. */
  added?: string;
}

type StoredEntry = [
  id: number,
  state: string | null,
  writes: number[],
  own: boolean,
  failure?: Failure | null,
  write?: OwnWrite | null,
  added?: string,
];

/**
 * The per-document table behind the echo records, kept across restarts in one JSON file (rewritten atomically,
 * coalesced). The least recently touched documents are forgotten first beyond `capacity`.
 */
export interface DocumentTable {
  get(id: number): Entry | undefined;
  /** The entry (created when missing), moved to the most recent end; saved with the next coalesced write. */
  touch(id: number): Entry;
  entries(): IterableIterator<[number, Entry]>;
  clear(): void;
  /** Saves now: a state that must survive a crash right after. */
  persist(): Promise<void>;
  persistSoon(): void;
  close(): Promise<void>;
}

export function openDocumentTable(options: {
  file: string;
  logger: Logger;
  capacity?: number;
  flushIntervalMs?: number;
}): DocumentTable {
  const capacity = options.capacity ?? 20_000;
  const entries = loadEntries(options.file, options.logger);
  const writer = createCoalescedWriter(
    () =>
      writeFileAtomic(
        options.file,
        JSON.stringify({
          version: 1,
          documents: [...entries].map(([id, e]): StoredEntry => {
            const stored: StoredEntry = [id, e.state, e.writes, e.own];
            if (e.failure || e.write || e.added) stored.push(e.failure ?? null);
            if (e.write || e.added) stored.push(e.write ?? null);
            if (e.added) stored.push(e.added);
            return stored;
          }),
        }),
        { mode: 0o600 },
      ),
    (message) => options.logger.error(`echo ledger ${options.file} could not be written: ${message}`),
    options.flushIntervalMs ?? 500,
  );
  return {
    get: (id) => entries.get(id),
    touch(id) {
      const entry = entries.get(id) ?? { state: null, own: false, writes: [] };
      entries.delete(id);
      entries.set(id, entry);
      while (entries.size > capacity) entries.delete(entries.keys().next().value as number);
      writer.soon();
      return entry;
    },
    entries: () => entries.entries(),
    clear: () => entries.clear(),
    persist: () => writer.now(),
    persistSoon: () => writer.soon(),
    close: () => writer.close(),
  };
}

function loadEntries(file: string, logger: Logger): Map<number, Entry> {
  const entries = new Map<number, Entry>();
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return entries;
  }
  try {
    const parsed = JSON.parse(text) as { version?: number; documents?: StoredEntry[] };
    if (parsed.version !== 1 || !Array.isArray(parsed.documents)) throw new Error('unexpected structure');
    for (const [id, state, writes, own, failure, write, added] of parsed.documents) {
      entries.set(id, {
        state,
        own,
        writes: Array.isArray(writes) ? writes : [],
        ...(failure ? { failure } : {}),
        ...(write ? { write } : {}),
        ...(typeof added === 'string' ? { added } : {}),
      });
    }
  } catch (err) {
    moveAside(file, 'echo ledger', errorMessage(err), logger);
    entries.clear();
  }
  return entries;
}
