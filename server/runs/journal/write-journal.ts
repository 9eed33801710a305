import { randomUUID } from 'node:crypto';
import type { Logger } from '../../log.js';
import { openJournalFile, type JournalFile } from './journal-file.js';
import { addedOf, entryAt, eventOf, isPacked, pack, runIdOf, statusOf, unpack, type HeldRun } from './packed-run.js';
import { openRestFile } from './rest-file.js';
import {
  isJournalEntry,
  type JournalRun,
  type EndEntry,
  type JournalEntry,
  type JournalWrite,
  type OutcomeEntry,
  type ReadValues,
  type RunEntry,
  type RunStatus,
} from './journal-records.js';

export type { JournalRun } from './journal-records.js';

export interface NewRun {
  dms: string;
  doc: number;
  event: number | null;
  source: string;
  rules: string[];
  added?: string;
  read: ReadValues;
  writes: JournalWrite[];
}

/** The writer's side of one journaled run: each request's outcome, then the end. */
export interface RunHandle {
  readonly run: JournalRun;
  outcome(i: number, result: { ok: boolean; error?: string; note?: number; reconciled?: true }): void;
  end(status: RunStatus, reconciled?: true): void;
}

/**
 * The write journal (docs/jobs-and-webhook.md#the-write-journal): the one record of what the service wrote. A run's
 * writes are on disk before the first request leaves (group commit: one fdatasync for every run begun meanwhile);
 * outcomes and ends follow without a sync of their own. Everything that asks "did the service already do this?"
 * reads it: recovery at start, echo recognition, the resume of deliveries and job pages.
 */
export interface WriteJournal {
  begin(runs: readonly NewRun[]): Promise<RunHandle[]>;
  /** The newest run of this event for this document that reached the dms in full or in part, if any. */
  appliedFor(event: number, dms: string, doc: number): JournalRun | null;
  /** True when a run of the `added` arrival of this document (its `added` time) reached the dms. */
  addedHandled(dms: string, doc: number, added: string): boolean;
  /** The document's runs, newest first (as many as the journal keeps per document). */
  runsOf(dms: string, doc: number): JournalRun[];
  /** Every run of one event, oldest first, on any dms (all of them while `keepEvent` holds for it): what undo restores. */
  runsOfEvent(event: number): JournalRun[];
  /** Runs begun and never ended (a kill came between), of one document or of all. */
  unfinished(dms?: string, doc?: number): JournalRun[];
  /** A handle to finish a run found unfinished at start. */
  resume(run: JournalRun): RunHandle;
  /**
   * `whole`: runs held as objects (only those not ended are; the others are held packed); `spilled`: packed runs
   * whose text is in the rest file, not in memory.
   */
  stats(): { runs: number; whole: number; spilled: number; bytes: number; syncs: number };
  close(): Promise<void>;
}

export interface WriteJournalOptions {
  file: string;
  logger: Logger;
  /** Runs kept per document for echo recognition (the newest; older ones go at compaction). */
  perDocument?: number;
  /** Documents whose runs are kept for echo recognition (those written most recently; like the echo ledger's). */
  documents?: number;
  /** Compaction starts beyond this many runs held, and beyond twice what the last compaction kept. */
  maxRuns?: number;
  /** Runs of these events are kept however old (real jobs still listed: undo and resume need them). */
  keepEvent?: (event: number) => boolean;
  now?: () => number;
}

const docKey = (dms: string, doc: number) => `${dms}#${doc}`;
const eventKey = (event: number, dms: string, doc: number) => `${event}#${dms}#${doc}`;
const applied = (held: HeldRun) => statusOf(held) === 'applied' || statusOf(held) === 'partial';

export function openWriteJournal(options: WriteJournalOptions): WriteJournal {
  const now = options.now ?? Date.now;
  const perDocument = options.perDocument ?? 2;
  const documents = options.documents ?? 20_000;
  const maxRuns = options.maxRuns ?? 50_000;
  const file: JournalFile = openJournalFile(options.file, options.logger);
  // Runs that ended are held packed (`packed-run.ts`), their texts in the rest file: thousands of them are held for
  // echo recognition and undo.
  const rests = openRestFile(`${options.file}.rests`, options.logger);
  const whole = (held: HeldRun) => unpack(held, rests.get);
  const runs = new Map<string, HeldRun>();
  /** Per document, its runs newest first. */
  const byDoc = new Map<string, HeldRun[]>();
  /** Per event and document, its newest run. */
  const byEvent = new Map<string, HeldRun>();
  const open = new Set<JournalRun>();
  let compactAbove = maxRuns;

  const keysOf = (held: HeldRun) => {
    const { dms, doc, event } = isPacked(held) ? held : held.entry;
    return { doc: docKey(dms, doc), event: event === null ? null : eventKey(event, dms, doc) };
  };
  const index = (held: HeldRun) => {
    if (runs.has(runIdOf(held))) return;
    runs.set(runIdOf(held), held);
    const keys = keysOf(held);
    byDoc.set(keys.doc, [held, ...(byDoc.get(keys.doc) ?? [])]);
    if (keys.event !== null) byEvent.set(keys.event, held);
    if (!isPacked(held) && held.end === null) open.add(held);
  };
  /** Puts `now` where `was` is held (a run that ended is packed; a packed one given an outcome late is repacked). */
  const replace = (was: HeldRun, now: HeldRun) => {
    runs.set(runIdOf(now), now);
    const keys = keysOf(now);
    const list = byDoc.get(keys.doc);
    const at = list?.indexOf(was) ?? -1;
    if (list && at >= 0) list[at] = now;
    if (keys.event !== null && byEvent.get(keys.event) === was) byEvent.set(keys.event, now);
  };
  const clear = () => {
    runs.clear();
    byDoc.clear();
    byEvent.clear();
    open.clear();
  };
  /** Applies an entry; `live` is the writer's own copy of the run (its handle's), kept up to date too. */
  const apply = (entry: JournalEntry, live?: JournalRun) => {
    if (entry.t === 'run') return index({ entry, outcomes: entry.writes.map(() => undefined), end: null });
    const held = runs.get(entry.run);
    if (!held) return;
    const run = isPacked(held) ? whole(held) : held;
    for (const copy of new Set([run, live ?? run])) {
      if (entry.t === 'out') copy.outcomes[entry.i] = entry;
      else copy.end = entry;
    }
    if (entry.t === 'end') open.delete(run);
    if (run.end !== null) replace(held, pack({ ...run, end: run.end }, rests.put));
  };
  for (const line of file.loaded) if (isJournalEntry(line)) apply(line);

  const handle = (run: JournalRun): RunHandle => ({
    run,
    outcome(i, result) {
      const entry: OutcomeEntry = { t: 'out', run: run.entry.run, i, ...result };
      apply(entry, run);
      void file.append(entry, false).catch(() => undefined);
    },
    end(status, reconciled) {
      const entry: EndEntry = { t: 'end', run: run.entry.run, status, ...(reconciled ? { reconciled } : {}) };
      apply(entry, run);
      void file.append(entry, false).catch(() => undefined);
      if (runs.size > compactAbove) void compact();
    },
  });

  /** What compaction keeps: unfinished runs, runs of kept events, and the newest runs of the newest documents. */
  const toKeep = (): HeldRun[] => {
    const keep = new Set<HeldRun>(open);
    for (const held of runs.values()) {
      const event = eventOf(held);
      if (event !== null && options.keepEvent?.(event)) keep.add(held);
    }
    const newest = [...byDoc.values()].sort((a, b) => entryAt(b[0]) - entryAt(a[0])).slice(0, documents);
    for (const list of newest) for (const held of list.slice(0, perDocument)) keep.add(held);
    return [...keep].sort((a, b) => entryAt(a) - entryAt(b));
  };

  let compacting = false;
  const compact = async () => {
    if (compacting) return;
    compacting = true;
    try {
      // What is kept is taken once every line in flight is written, and the file replaced at once after.
      await file.rewrite(() => {
        const kept = toKeep();
        // The rest file starts again with the texts of what is kept, in the same order.
        const moved = rests.restart(kept.filter(isPacked).map((held) => held.rest));
        let next = 0;
        const keep = kept.map((held) => (isPacked(held) ? { ...held, rest: moved[next++] } : held));
        clear();
        for (const held of keep) index(held);
        compactAbove = Math.max(maxRuns, keep.length * 2);
        return keep
          .map(whole)
          .flatMap((run) => [
            run.entry,
            ...run.outcomes.filter((o): o is OutcomeEntry => o !== undefined),
            ...(run.end ? [run.end] : []),
          ]);
      });
    } catch (err) {
      options.logger.warn(`the write journal could not be compacted: ${String(err)}`);
    } finally {
      compacting = false;
    }
  };

  return {
    async begin(newRuns) {
      const entries: RunEntry[] = newRuns.map((r) => ({ t: 'run', run: randomUUID(), at: now(), ...r }));
      // Known in memory at once (a compaction meanwhile keeps them); sent only once on disk, one sync for all.
      for (const entry of entries) apply(entry);
      const begun = entries.map((entry) => runs.get(entry.run) as JournalRun);
      // Packed and replaced in the index once it ends; the writer's handle keeps the object it began with.
      try {
        await Promise.all(entries.map((entry, i) => file.append(entry, i === entries.length - 1)));
      } catch (err) {
        // Not on disk, so never sent.
        for (const run of begun) apply({ t: 'end', run: run.entry.run, status: 'not_applied' });
        throw err;
      }
      return begun.map(handle);
    },
    appliedFor(event, dms, doc) {
      const held = byEvent.get(eventKey(event, dms, doc));
      return held && applied(held) ? whole(held) : null;
    },
    addedHandled: (dms, doc, added) =>
      (byDoc.get(docKey(dms, doc)) ?? []).some((held) => addedOf(held) === added && applied(held)),
    runsOf: (dms, doc) => (byDoc.get(docKey(dms, doc)) ?? []).map(whole),
    // A scan, once per undo: runs are held in the order they were begun (compaction keeps that order).
    runsOfEvent: (event) => [...runs.values()].filter((held) => eventOf(held) === event).map(whole),
    unfinished: (dms, doc) =>
      [...open].filter((run) => dms === undefined || (run.entry.dms === dms && run.entry.doc === doc)),
    resume: handle,
    stats: () => ({
      runs: runs.size,
      whole: [...runs.values()].filter((held) => !isPacked(held)).length,
      spilled: [...runs.values()].filter((held) => isPacked(held) && typeof held.rest !== 'string').length,
      bytes: file.bytes,
      syncs: file.syncs,
    }),
    async close() {
      await file.close();
      rests.close();
    },
  };
}
