import fs from 'node:fs';
import { writeFileAtomic } from '../../atomic-write.js';
import type { DmsClient, DmsDocument } from '../../dms/types.js';
import { errorMessage } from '../../error-message.js';
import { createCoalescedWriter } from '../../coalesced-writer.js';
import { moveAside } from '../../move-aside.js';
import type { Logger } from '../../log.js';
import { changedBesides, documentState, type WriteExpectation } from './document-state.js';
import type { EchoWrites } from './echo-writes.js';
import { beforeMirror, mirroredLinks } from './link-mirror.js';

export interface EchoLedgerOptions {
  /** Where the ledger survives restarts (JSON, rewritten atomically). */
  file: string;
  dms: Pick<DmsClient, 'getDocuments'>;
  logger: Logger;
  /** Loop breaker: at most this many writes to one document within `loopWindowMs`. */
  loopMaxWrites: number;
  loopWindowMs: number;
  /** Documents remembered; the least recently touched are forgotten first. */
  capacity?: number;
  flushIntervalMs?: number;
  now?: () => number;
  /**
   * Whether the write journal holds a run of the document's `added` arrival (its `added` time): the ledger's own
   * record of it is saved a moment later, and a kill in between must not make the arrival new again.
   */
  addedInJournal?: (doc: DmsDocument) => boolean;
}

/**
 * The echo guard by state: per document, the state the service last left it in (written, or
 * handled without writing). A webhook or catch-up that finds the document in exactly that state is the
 * service's own echo, or a change already handled, however late it comes; any other state is a change
 * someone else made, however soon. On top, a loop breaker stops writing a document written too often.
 */
export interface EchoLedger extends EchoWrites {
  /** Resolves once no write to the document is in flight (or after `maxWaitMs`). */
  settled(documentId: number, maxWaitMs?: number): Promise<void>;
  /** The document is as this write of the service left it (found so from the write journal after a kill). */
  adopt(doc: DmsDocument, write: OwnWrite): void;
  /** True when the document is exactly as the service last wrote or handled it. */
  isKnownState(doc: DmsDocument): boolean;
  /** True when the document is exactly as the service's own last write left it (its echo). */
  isOwnWrite(doc: DmsDocument): boolean;
  /** For a document exactly as the service's own last write left it: what that write was based on (null when unknown). */
  ownWrite(doc: DmsDocument): OwnWrite | null;
  /**
   * A run of this state was applied in full: a failure recorded for the document is over, and when the run
   * wrote nothing (or was dry) this state is known as handled (a write's own state is known from `settle`).
   */
  handled(doc: DmsDocument, wrote?: boolean, added?: boolean): void;
  /** True when an `added` arrival of this very document (same `added` time) was handled already: a duplicate. */
  addedHandled(doc: DmsDocument): boolean;
  /**
   * A run of this state could not be applied (the dms refused a write): the state is not handled, and the
   * attempts at it are counted (a new state starts again at 1). Returns the count so far.
   */
  failed(doc: DmsDocument, message: string): number;
  /**
   * The document could not even be read (the dms failed): listed with the failures like a refused write, counted
   * per document until a run of it succeeds. Returns the count so far.
   */
  failedRead(documentId: number, message: string): number;
  /** The documents whose last run failed and whose state has not changed since, newest first. */
  failures(limit?: number): DocumentFailure[];
  /** How often runs of exactly this state have failed (0: never, or a new state since). */
  failedAttempts(doc: DmsDocument): number;
  /** Null when the service may write the document; otherwise the loop breaker's reason. */
  holdReason(documentId: number): string | null;
  /** A person asked for a run of this document: the loop breaker lets it be written again. */
  release(documentId: number): void;
  /**
   * The service now talks to another dms, where the same ids are other documents: every state is forgotten (the
   * write journal, kept per dms, still recognises the service's own writes there).
   */
  forgetAll(): void;
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface DocumentFailure {
  document: number;
  message: string;
  attempts: number;
  at: string;
}

interface Failure {
  state: string;
  message: string;
  attempts: number;
  at: number;
}

/** What the service's last write of a document was based on: when the document it read was last saved, and what it wrote. */
export interface OwnWrite {
  /** `modified` of the document as the rules read it (the dms's clock). */
  readAt: string;
  /** The fields the write changed. */
  fields: string[];
}

interface Entry {
  state: string | null;
  failure?: Failure;
  write?: OwnWrite;
  /** The state is what the service wrote (not only a state it handled without writing). */
  own: boolean;
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

const READ_BACK_BATCH = 100;

export function openEchoLedger(options: EchoLedgerOptions): EchoLedger {
  const now = options.now ?? Date.now;
  const capacity = options.capacity ?? 20_000;
  const entries = loadEntries(options.file, options.logger);
  const pending = new Map<number, number>();
  const waiters = new Map<number, Array<() => void>>();
  const readBack = new Set<number>();
  const expectations = new Map<number, WriteExpectation>();
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
        {
          mode: 0o600,
        },
      ),
    (message) => options.logger.error(`echo ledger ${options.file} could not be written: ${message}`),
    options.flushIntervalMs ?? 500,
  );
  const persist = () => writer.now();
  const persistSoon = () => writer.soon();

  /** Moves the entry to the end (most recent) and forgets the oldest beyond capacity. */
  const touch = (id: number): Entry => {
    const entry = entries.get(id) ?? { state: null, own: false, writes: [] };
    entries.delete(id);
    entries.set(id, entry);
    while (entries.size > capacity) entries.delete(entries.keys().next().value as number);
    persistSoon();
    return entry;
  };

  const recentWrites = (entry: Entry | undefined): number[] => {
    if (!entry) return [];
    const since = now() - options.loopWindowMs;
    entry.writes = entry.writes.filter((t) => t > since);
    return entry.writes;
  };

  const done = (id: number) => {
    const left = (pending.get(id) ?? 1) - 1;
    if (left > 0) return void pending.set(id, left);
    pending.delete(id);
    for (const wake of waiters.get(id) ?? []) wake();
    waiters.delete(id);
  };

  /** The state after the service's write, unless someone else changed another field meanwhile (then: not known). */
  const recordWritten = (doc: DmsDocument, expected: WriteExpectation | undefined) => {
    const foreign = expected ? changedBesides(expected, doc) : [];
    if (foreign.length === 0) {
      record(doc, true, expected ? { readAt: expected.before.modified, fields: [...expected.fields] } : undefined);
      settleMirrors(doc, expected?.before);
      return;
    }
    const entry = touch(doc.id);
    entry.state = null;
    entry.own = false;
    options.logger.info(
      `document ${doc.id}: ${foreign.join(', ')} changed in the dms while the service wrote it; the next arrival runs the rules`,
    );
  };

  const record = (doc: DmsDocument, own: boolean, write?: OwnWrite) => {
    const entry = touch(doc.id);
    entry.state = documentState(doc);
    entry.own = own;
    if (write) entry.write = write;
    else delete entry.write;
    // A write's state is saved at once: a crash right after must not turn its late echo into a run.
    if (own) void persist();
  };

  /**
   * The targets of the links the service wrote: Paperless mirrored the link onto them (link-mirror.ts). A target
   * whose only change since the state the service knew is that mirror is in a state of the service's own; one
   * that changed otherwise too, or that the service never handled, is left to its next arrival.
   */
  const settleMirrors = (doc: DmsDocument, before: DmsDocument | undefined) => {
    const links = mirroredLinks(doc, before).filter((link) => entries.get(link.target)?.state != null);
    const targets = [...new Set(links.map((link) => link.target))];
    if (targets.length === 0) return;
    // A catch-up that reads a target meanwhile waits for this (`settled`), so it never runs the mirror as a change.
    for (const id of targets) pending.set(id, (pending.get(id) ?? 0) + 1);
    void (async () => {
      try {
        for (const target of await options.dms.getDocuments(targets)) {
          const known = entries.get(target.id)?.state;
          if (known == null || documentState(target) === known) continue;
          const candidates = links
            .filter((link) => link.target === target.id)
            .reduce<DmsDocument[]>(
              (forms, link) => forms.flatMap((form) => [form, ...beforeMirror(form, link)]),
              [target],
            );
          if (!candidates.some((form) => documentState(form) === known)) continue;
          record(target, true);
          options.logger.info(
            `document ${target.id}: the link from document ${doc.id} mirrored onto it is the service's own change`,
          );
        }
      } catch (err) {
        options.logger.warn(`could not read the documents linked from document ${doc.id}: ${errorMessage(err)}`);
      } finally {
        for (const id of targets) done(id);
      }
    })();
  };

  const flushReadBack = async () => {
    const ids = [...readBack].slice(0, READ_BACK_BATCH);
    for (const id of ids) readBack.delete(id);
    if (readBack.size > 0) setImmediate(() => void flushReadBack());
    const seen = new Set<number>();
    try {
      for (const doc of await options.dms.getDocuments(ids)) {
        seen.add(doc.id);
        recordWritten(doc, expectations.get(doc.id));
        expectations.delete(doc.id);
      }
    } catch (err) {
      // Without the state the next echo runs the rules once more; idempotent plans make that a no-op.
      options.logger.warn(`could not read back ${ids.length} written document(s): ${errorMessage(err)}`);
    }
    for (const id of ids) {
      // Gone (deleted) or unreadable: no state to compare with, so the next delivery runs the rules.
      if (!seen.has(id) && entries.has(id)) touch(id).state = null;
      expectations.delete(id);
      done(id);
    }
  };

  return {
    mark(id) {
      pending.set(id, (pending.get(id) ?? 0) + 1);
      const entry = touch(id);
      recentWrites(entry).push(now());
    },
    settle(id, written, expected) {
      if (written) {
        recordWritten(written, expected);
        return done(id);
      }
      if (expected) expectations.set(id, expected);
      else expectations.delete(id);
      if (readBack.size === 0) setImmediate(() => void flushReadBack());
      if (readBack.has(id)) return done(id);
      readBack.add(id);
    },
    refused(id) {
      // Nothing reached the dms: no write to count against the loop breaker, no state to read back.
      const entry = entries.get(id);
      if (entry && entry.writes.length > 0) entry.writes.pop();
      done(id);
    },
    settled(id, maxWaitMs = 30_000) {
      if (!pending.has(id)) return Promise.resolve();
      return new Promise((resolve) => {
        const timeout = setTimeout(resolve, maxWaitMs);
        const list = waiters.get(id) ?? [];
        list.push(() => (clearTimeout(timeout), resolve()));
        waiters.set(id, list);
      });
    },
    adopt(doc, write) {
      record(doc, true, write);
    },
    addedHandled(doc) {
      return entries.get(doc.id)?.added === doc.added || options.addedInJournal?.(doc) === true;
    },
    isKnownState(doc) {
      const entry = entries.get(doc.id);
      return entry?.state != null && entry.state === documentState(doc);
    },
    isOwnWrite(doc) {
      const entry = entries.get(doc.id);
      return entry?.own === true && entry.state === documentState(doc);
    },
    ownWrite(doc) {
      const entry = entries.get(doc.id);
      return entry?.own === true && entry.state === documentState(doc) ? (entry.write ?? null) : null;
    },
    forgetAll() {
      entries.clear();
      void persist();
    },
    handled(doc, wrote = false, added = false) {
      if (added) {
        touch(doc.id).added = doc.added;
        persistSoon();
      }
      const entry = entries.get(doc.id);
      if (entry?.failure) {
        delete entry.failure;
        persistSoon();
      }
      if (!wrote && !pending.has(doc.id)) record(doc, false);
    },
    failed(doc, message) {
      const entry = touch(doc.id);
      const state = documentState(doc);
      // Not handled, not even a partly applied write's state: the next arrival or catch-up runs the rules again.
      entry.state = null;
      entry.own = false;
      const attempts = entry.failure?.state === state ? entry.failure.attempts + 1 : 1;
      entry.failure = { state, message, attempts, at: now() };
      void persist();
      return attempts;
    },
    failedRead(id, message) {
      const entry = touch(id);
      entry.state = null;
      entry.own = false;
      // No state was read: the empty state never equals a document's, so the next run that reads one starts afresh.
      const attempts = entry.failure?.state === '' ? entry.failure.attempts + 1 : 1;
      entry.failure = { state: '', message, attempts, at: now() };
      void persist();
      return attempts;
    },
    failures(limit = 20) {
      const list: DocumentFailure[] = [];
      for (const [document, entry] of entries) {
        if (entry.failure)
          list.push({
            document,
            message: entry.failure.message,
            attempts: entry.failure.attempts,
            at: new Date(entry.failure.at).toISOString(),
          });
      }
      return list.sort((a, b) => b.at.localeCompare(a.at)).slice(0, limit);
    },
    failedAttempts(doc) {
      const failure = entries.get(doc.id)?.failure;
      return failure && failure.state === documentState(doc) ? failure.attempts : 0;
    },
    holdReason(id) {
      const writes = recentWrites(entries.get(id));
      if (writes.length < options.loopMaxWrites) return null;
      const minutes = Math.round(options.loopWindowMs / 60_000);
      return (
        `Loop breaker: the service wrote document ${id} ${writes.length} times within ${minutes} minutes (limit ${options.loopMaxWrites}, ` +
        `SVC_LOOP_MAX_WRITES); it is not written again until a person runs the rules for it by hand or ${minutes} minutes pass without a write.`
      );
    },
    release(id) {
      const entry = entries.get(id);
      if (entry && entry.writes.length > 0) {
        entry.writes = [];
        persistSoon();
      }
    },
    flush: () => persist(),
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
        own: own,
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
