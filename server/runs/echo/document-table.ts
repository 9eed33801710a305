import fs from 'node:fs';
import fsp from 'node:fs/promises';
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
 * The per-document table behind the echo records, kept across restarts in a snapshot and a change log (coalesced). The least recently touched documents are forgotten first beyond `capacity`.
 */
export interface DocumentTable {
  get(id: number): Entry | undefined;
  /** The entry (created when missing), moved to the most recent end; saved with the next coalesced write. */
  touch(id: number): Entry;
  entries(): IterableIterator<[number, Entry]>;
  clear(): void;
  /** Saves now: a state that must survive a crash right after. */
  persist(): Promise<void>;
  /** An entry from `get` was changed in place: saved with the next coalesced write. */
  changed(id: number): void;
  close(): Promise<void>;
}

/**
 * Persistence in two parts, so a write costs what changed, not the whole table: a snapshot (rewritten atomically
 * once the change log grows as large as the table, or after `clear`) and an append-only change log of the entries
 * touched or changed since the last write, each line carrying the snapshot's generation. A log line of an older
 * generation (a kill between a snapshot and the log's truncation) is ignored; a torn last line is skipped. After a
 * torn line or a failed save the next save is a snapshot, so nothing is appended behind half a line.
 */
export function openDocumentTable(options: {
  file: string;
  logger: Logger;
  capacity?: number;
  flushIntervalMs?: number;
}): DocumentTable {
  const capacity = options.capacity ?? 20_000;
  const logFile = `${options.file}.changes`;
  const loaded = loadEntries(options.file, logFile, capacity, options.logger);
  const entries = loaded.entries;
  let generation = loaded.generation;
  let logLines = loaded.logLines;
  // A torn last line would swallow the next append (it continues the torn line): the next save is a snapshot.
  let rewrite = loaded.torn;
  const dirty = new Set<number>();
  const mark = (id: number) => {
    if (!rewrite) dirty.add(id);
  };
  const snapshot = async () => {
    const documents = [...entries].map(([id, e]) => stored(id, e));
    const next = generation + 1;
    await writeFileAtomic(options.file, JSON.stringify({ version: 1, generation: next, documents }), { mode: 0o600 });
    // Only once the snapshot is on disk: a log line of a generation the snapshot never reached is ignored on load.
    generation = next;
    await fsp.rm(logFile, { force: true });
    logLines = 0;
  };
  const append = async (ids: number[]) => {
    const lines = ids.flatMap((id) => {
      const e = entries.get(id);
      return e ? [JSON.stringify([generation, ...stored(id, e)]) + '\n'] : [];
    });
    if (lines.length === 0) return;
    const handle = await fsp.open(logFile, 'a', 0o600);
    try {
      await handle.writeFile(lines.join(''));
      await handle.datasync();
    } finally {
      await handle.close();
    }
    logLines += lines.length;
  };
  const writer = createCoalescedWriter(
    async () => {
      const ids = [...dirty];
      dirty.clear();
      for (const id of ids) compact(entries.get(id));
      try {
        if (rewrite || logLines + ids.length > Math.max(1000, entries.size)) {
          rewrite = false;
          await snapshot();
        } else await append(ids);
      } catch (err) {
        // What failed (maybe half an appended line) is not lost: the next save is a whole snapshot.
        rewrite = true;
        throw err;
      }
    },
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
      mark(id);
      writer.soon();
      return entry;
    },
    entries: () => entries.entries(),
    clear() {
      entries.clear();
      dirty.clear();
      rewrite = true;
    },
    persist: () => writer.now(),
    changed(id) {
      if (!entries.has(id)) return;
      mark(id);
      writer.soon();
    },
    close: () => writer.close(),
  };
}

/**
 * Holds an entry's values without what their making left around them: the loop breaker's array of write times
 * grows to 17 slots at its first push, and the state digest is a slice that keeps the whole digest alive. For
 * the 20,000 documents the table holds, that was about 30 % of its memory. Done as an entry is saved (no caller
 * keeps the array or the string across turns; the values are the same).
 */
function compact(e: Entry | undefined): void {
  if (!e) return;
  if (e.writes.length > 0) e.writes = e.writes.slice();
  if (e.state !== null) e.state = JSON.parse(JSON.stringify(e.state)) as string;
}

function stored(id: number, e: Entry): StoredEntry {
  const row: StoredEntry = [id, e.state, e.writes, e.own];
  if (e.failure || e.write || e.added) row.push(e.failure ?? null);
  if (e.write || e.added) row.push(e.write ?? null);
  if (e.added) row.push(e.added);
  return row;
}

function toEntry([, state, writes, own, failure, write, added]: StoredEntry): Entry {
  return {
    state,
    own,
    writes: Array.isArray(writes) ? writes : [],
    ...(failure ? { failure } : {}),
    ...(write ? { write } : {}),
    ...(typeof added === 'string' ? { added } : {}),
  };
}

function loadEntries(
  file: string,
  logFile: string,
  capacity: number,
  logger: Logger,
): { entries: Map<number, Entry>; generation: number; logLines: number; torn: boolean } {
  const entries = new Map<number, Entry>();
  let generation = 0;
  let text: string | null = null;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    // No snapshot yet: the change log alone (generation 0) holds what was written.
  }
  if (text !== null) {
    try {
      const parsed = JSON.parse(text) as { version?: number; generation?: number; documents?: StoredEntry[] };
      if (parsed.version !== 1 || !Array.isArray(parsed.documents)) throw new Error('unexpected structure');
      generation = typeof parsed.generation === 'number' ? parsed.generation : 0;
      for (const row of parsed.documents) entries.set(row[0], toEntry(row));
    } catch (err) {
      moveAside(file, 'echo ledger', errorMessage(err), logger);
      entries.clear();
      fs.rmSync(logFile, { force: true });
      return { entries, generation: 0, logLines: 0, torn: false };
    }
  }
  let logLines = 0;
  let log = '';
  try {
    log = fs.readFileSync(logFile, 'utf8');
  } catch {
    // No changes since the snapshot.
  }
  for (const line of log.split('\n')) {
    if (!line) continue;
    let row: [number, ...StoredEntry];
    try {
      row = JSON.parse(line) as [number, ...StoredEntry];
    } catch {
      continue; // a line torn by a kill mid-append
    }
    logLines++;
    if (row[0] !== generation || !Array.isArray(row) || typeof row[1] !== 'number') continue;
    const entry = row.slice(1) as StoredEntry;
    entries.delete(entry[0]);
    entries.set(entry[0], toEntry(entry));
  }
  while (entries.size > capacity) entries.delete(entries.keys().next().value as number);
  return { entries, generation, logLines, torn: log !== '' && !log.endsWith('\n') };
}
