import { randomUUID } from 'node:crypto';
import type { Logger } from '../../log.js';
import { openJournalFile, type JournalFile } from './journal-file.js';
import {
  isJournalEntry,
  type EndEntry,
  type JournalEntry,
  type JournalWrite,
  type OutcomeEntry,
  type ReadValues,
  type RunEntry,
  type RunStatus,
} from './journal-records.js';

/** A run's writes as the journal knows them: what was planned, how each request ended, and the end. */
export interface JournalRun {
  entry: RunEntry;
  outcomes: Array<OutcomeEntry | undefined>;
  end: EndEntry | null;
}

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
  stats(): { runs: number; bytes: number; syncs: number };
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

export function openWriteJournal(options: WriteJournalOptions): WriteJournal {
  const now = options.now ?? Date.now;
  const perDocument = options.perDocument ?? 2;
  const documents = options.documents ?? 20_000;
  const maxRuns = options.maxRuns ?? 50_000;
  const file: JournalFile = openJournalFile(options.file, options.logger);
  const runs = new Map<string, JournalRun>();
  /** Per document, its runs newest first. */
  const byDoc = new Map<string, JournalRun[]>();
  /** Per event and document, its newest run. */
  const byEvent = new Map<string, JournalRun>();
  const open = new Set<JournalRun>();
  let compactAbove = maxRuns;

  const index = (run: JournalRun) => {
    if (runs.has(run.entry.run)) return;
    runs.set(run.entry.run, run);
    const key = docKey(run.entry.dms, run.entry.doc);
    byDoc.set(key, [run, ...(byDoc.get(key) ?? [])]);
    if (run.entry.event !== null) byEvent.set(eventKey(run.entry.event, run.entry.dms, run.entry.doc), run);
    if (run.end === null) open.add(run);
  };
  const clear = () => {
    runs.clear();
    byDoc.clear();
    byEvent.clear();
    open.clear();
  };
  const apply = (entry: JournalEntry) => {
    if (entry.t === 'run') return index({ entry, outcomes: entry.writes.map(() => undefined), end: null });
    const run = runs.get(entry.run);
    if (!run) return;
    if (entry.t === 'out') run.outcomes[entry.i] = entry;
    else {
      run.end = entry;
      open.delete(run);
    }
  };
  for (const line of file.loaded) if (isJournalEntry(line)) apply(line);

  const handle = (run: JournalRun): RunHandle => ({
    run,
    outcome(i, result) {
      const entry: OutcomeEntry = { t: 'out', run: run.entry.run, i, ...result };
      apply(entry);
      void file.append(entry, false).catch(() => undefined);
    },
    end(status, reconciled) {
      const entry: EndEntry = { t: 'end', run: run.entry.run, status, ...(reconciled ? { reconciled } : {}) };
      apply(entry);
      void file.append(entry, false).catch(() => undefined);
      if (runs.size > compactAbove) void compact();
    },
  });

  /** What compaction keeps: unfinished runs, runs of kept events, and the newest runs of the newest documents. */
  const kept = (): JournalRun[] => {
    const keep = new Set<JournalRun>(open);
    for (const run of runs.values())
      if (run.entry.event !== null && options.keepEvent?.(run.entry.event)) keep.add(run);
    const newest = [...byDoc.values()].sort((a, b) => b[0].entry.at - a[0].entry.at).slice(0, documents);
    for (const list of newest) for (const run of list.slice(0, perDocument)) keep.add(run);
    return [...keep].sort((a, b) => a.entry.at - b.entry.at);
  };

  let compacting = false;
  const compact = async () => {
    if (compacting) return;
    compacting = true;
    try {
      // What is kept is taken once every line in flight is written, and the file replaced at once after.
      await file.rewrite(() => {
        const keep = kept();
        clear();
        for (const run of keep) index(run);
        compactAbove = Math.max(maxRuns, keep.length * 2);
        return keep.flatMap((run) => [
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
      const run = byEvent.get(eventKey(event, dms, doc));
      return run?.end?.status === 'applied' || run?.end?.status === 'partial' ? run : null;
    },
    addedHandled: (dms, doc, added) =>
      (byDoc.get(docKey(dms, doc)) ?? []).some(
        (run) => run.entry.added === added && (run.end?.status === 'applied' || run.end?.status === 'partial'),
      ),
    runsOf: (dms, doc) => byDoc.get(docKey(dms, doc)) ?? [],
    // A scan, once per undo: runs are held in the order they were begun (compaction keeps that order).
    runsOfEvent: (event) => [...runs.values()].filter((run) => run.entry.event === event),
    unfinished: (dms, doc) =>
      [...open].filter((run) => dms === undefined || (run.entry.dms === dms && run.entry.doc === doc)),
    resume: handle,
    stats: () => ({ runs: runs.size, bytes: file.bytes, syncs: file.syncs }),
    close: () => file.close(),
  };
}
