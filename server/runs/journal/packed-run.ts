import type { EndEntry, JournalRun, OutcomeEntry, RunEntry, RunStatus } from './journal-records.js';
import type { Rest } from './rest-file.js';

/**
 * A finished run as the journal holds it in memory: what its lookups need as fields, the rest (what it read, its
 * writes and outcomes) as one JSON text, read back when a caller asks for the run. A run held as objects took about
 * 1.8 KB of heap with its index (its read values alone are a dozen small objects and arrays), packed 1.2 KB
 * (`bench/record-memory.ts`); the journal moves the text to its rest file (`rest-file.ts`).
 */
export interface PackedRun {
  readonly run: string;
  readonly dms: string;
  readonly doc: number;
  readonly event: number | null;
  readonly at: number;
  readonly status: RunStatus;
  readonly added: string | undefined;
  readonly rest: Rest;
}

/** A run the journal holds: whole while it is open (its writer still adds outcomes), packed once it ended. */
export type HeldRun = JournalRun | PackedRun;

export const isPacked = (held: HeldRun): held is PackedRun => 'rest' in held;

export const entryAt = (held: HeldRun) => (isPacked(held) ? held.at : held.entry.at);
export const eventOf = (held: HeldRun) => (isPacked(held) ? held.event : held.entry.event);
export const statusOf = (held: HeldRun) => (isPacked(held) ? held.status : held.end?.status);
export const addedOf = (held: HeldRun) => (isPacked(held) ? held.added : held.entry.added);
export const runIdOf = (held: HeldRun) => (isPacked(held) ? held.run : held.entry.run);

type RestFields = [
  entry: Omit<RunEntry, 't' | 'run' | 'dms' | 'doc' | 'event' | 'at' | 'added'>,
  outcomes: Array<Omit<OutcomeEntry, 't' | 'run'> | null>,
  reconciled: true | undefined,
];

/** Packs an ended run (one with `end`); `put` moves its text out (or keeps it). */
export function pack(run: JournalRun & { end: EndEntry }, put: (text: string) => Rest): PackedRun {
  const { t: _t, run: id, dms, doc, event, at, added, ...entry } = run.entry;
  const outcomes = run.outcomes.map((o) => {
    if (!o) return null;
    const { t: _o, run: _r, ...outcome } = o;
    return outcome;
  });
  const rest: RestFields = [entry, outcomes, run.end.reconciled];
  return { run: id, dms, doc, event, at, status: run.end.status, added, rest: put(JSON.stringify(rest)) };
}

/** The run as the journal's callers know it (a fresh copy each time); `text` reads a rest that was moved out. */
export function unpack(held: HeldRun, text: (rest: Rest) => string): JournalRun {
  if (!isPacked(held)) return held;
  const [entry, outcomes, reconciled] = JSON.parse(text(held.rest)) as RestFields;
  const { run, dms, doc, event, at, added } = held;
  return {
    entry: { t: 'run', run, dms, doc, event, at, ...(added !== undefined ? { added } : {}), ...entry },
    outcomes: outcomes.map((o) => (o ? { t: 'out', run, ...o } : undefined)),
    end: { t: 'end', run, status: held.status, ...(reconciled ? { reconciled } : {}) },
  };
}
