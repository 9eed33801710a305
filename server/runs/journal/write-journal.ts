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
  /** The document's runs, newest first (as many as the journal keeps per document). */
  runsOf(dms: string, doc: number): JournalRun[];
  /** Runs begun and never ended: a kill came between. */
  unfinished(): JournalRun[];
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
  /** Compaction starts beyond this many runs held (the file is rewritten with what is kept). */
  maxRuns?: number;
  /** Runs of these events are kept however old (jobs that may still be undone or resumed). */
  keepEvent?: (event: number) => boolean;
  now?: () => number;
}

const docKey = (dms: string, doc: number) => `${dms}#${doc}`;

export function openWriteJournal(options: WriteJournalOptions): WriteJournal {
  const now = options.now ?? Date.now;
  const perDocument = options.perDocument ?? 8;
  const maxRuns = options.maxRuns ?? 50_000;
  const file: JournalFile = openJournalFile(options.file, options.logger);
  const runs = new Map<string, JournalRun>();
  const byDoc = new Map<string, JournalRun[]>();
  const byEvent = new Map<number, JournalRun[]>();

  const index = (run: JournalRun) => {
    runs.set(run.entry.run, run);
    const key = docKey(run.entry.dms, run.entry.doc);
    const list = byDoc.get(key) ?? [];
    list.unshift(run);
    byDoc.set(key, list);
    if (run.entry.event !== null) {
      const events = byEvent.get(run.entry.event) ?? [];
      events.unshift(run);
      byEvent.set(run.entry.event, events);
    }
  };
  const apply = (entry: JournalEntry) => {
    if (entry.t === 'run') return index({ entry, outcomes: entry.writes.map(() => undefined), end: null });
    const run = runs.get(entry.run);
    if (!run) return;
    if (entry.t === 'out') run.outcomes[entry.i] = entry;
    else run.end = entry;
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
      if (runs.size > maxRuns) void compact();
    },
  });

  /** Keeps unfinished runs, the newest per document, and those of events that must stay; rewrites the file. */
  let compacting = false;
  const compact = async () => {
    if (compacting) return;
    compacting = true;
    try {
      const keep = new Set<JournalRun>();
      for (const list of byDoc.values()) for (const run of list.slice(0, perDocument)) keep.add(run);
      for (const run of runs.values()) {
        if (run.end === null) keep.add(run);
        else if (run.entry.event !== null && options.keepEvent?.(run.entry.event)) keep.add(run);
      }
      const kept = [...runs.values()].filter((run) => keep.has(run));
      runs.clear();
      byDoc.clear();
      byEvent.clear();
      for (const run of kept.sort((a, b) => a.entry.at - b.entry.at)) index(run);
      await file.rewrite(
        kept.flatMap((run) => [
          run.entry,
          ...run.outcomes.filter((o): o is OutcomeEntry => o !== undefined),
          ...(run.end ? [run.end] : []),
        ]),
      );
    } catch (err) {
      options.logger.warn(`the write journal could not be compacted: ${String(err)}`);
    } finally {
      compacting = false;
    }
  };

  return {
    async begin(newRuns) {
      const entries: RunEntry[] = newRuns.map((r) => ({ t: 'run', run: randomUUID(), at: now(), ...r }));
      // One sync for all of them; the first request leaves only after it.
      await Promise.all(entries.map((entry, i) => file.append(entry, i === entries.length - 1)));
      return entries.map((entry) => {
        apply(entry);
        return handle(runs.get(entry.run) as JournalRun);
      });
    },
    appliedFor(event, dms, doc) {
      for (const run of byEvent.get(event) ?? []) {
        if (run.entry.dms !== dms || run.entry.doc !== doc) continue;
        if (run.end?.status === 'applied' || run.end?.status === 'partial') return run;
      }
      return null;
    },
    runsOf: (dms, doc) => byDoc.get(docKey(dms, doc)) ?? [],
    unfinished: () => [...runs.values()].filter((run) => run.end === null),
    resume: handle,
    stats: () => ({ runs: runs.size, bytes: file.bytes, syncs: file.syncs }),
    close: () => file.close(),
  };
}
