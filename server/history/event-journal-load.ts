import fs from 'node:fs';
import type { Logger } from '../log.js';
import { EVENT_KINDS, EVENT_STATUSES, type EventRecord } from './event-types.js';
import { readJsonLines } from '../jsonl-file.js';
import { moveAside, setAside } from '../move-aside.js';
import { salvageArray } from './salvage-json.js';
import { errorMessage } from '../error-message.js';

/** The first line of a compacted journal: ids of records dropped since must not be handed out again. */
export interface JournalHeader {
  journal: 'events';
  version: 1;
  next_id: number;
}

/** A record forgotten after it was written (a delivery that was the service's own echo). */
export interface DropLine {
  drop: number;
}

export interface LoadedEvents {
  events: EventRecord[];
  nextId: number;
  /** The pre-journal `events.json`, to delete once the journal holding its records is on disk. */
  legacyFile: string | null;
}

const KINDS: ReadonlySet<string> = new Set(EVENT_KINDS);
const STATUSES: ReadonlySet<string> = new Set(EVENT_STATUSES);

export function isEventRecord(value: unknown): value is EventRecord {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<EventRecord>;
  return (
    Number.isSafeInteger(v.event_id) &&
    (v.event_id ?? 0) > 0 &&
    KINDS.has(String(v.kind)) &&
    STATUSES.has(String(v.status)) &&
    typeof v.created_at === 'string'
  );
}

function isHeader(value: unknown): value is JournalHeader {
  const v = value as Partial<JournalHeader> | null;
  return typeof v === 'object' && v !== null && v.journal === 'events' && Number.isSafeInteger(v.next_id);
}

function isDrop(value: unknown): value is DropLine {
  const v = value as Partial<DropLine> | null;
  return typeof v === 'object' && v !== null && Number.isSafeInteger(v.drop);
}

type JournalLine = JournalHeader | DropLine | EventRecord;
const isJournalLine = (value: unknown): value is JournalLine =>
  isHeader(value) || isDrop(value) || isEventRecord(value);

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * Reads the events journal (`events.jsonl`: one JSON record per line, a later line for the same id replacing
 * the earlier one), or migrates the pre-journal `events.json`. Whatever does not parse is kept aside in
 * `<file>.corrupt-<time>` and counted in the log; every record that does parse is kept.
 */
export function loadEvents(journalFile: string, legacyFile: string, logger: Logger, now: Date): LoadedEvents {
  if (fs.existsSync(journalFile)) {
    // A crash between writing the journal and deleting the old file: the journal already holds its records.
    return { ...readJournal(journalFile, logger, now), legacyFile: fs.existsSync(legacyFile) ? legacyFile : null };
  }
  if (fs.existsSync(legacyFile)) return { ...readLegacy(legacyFile, logger, now), legacyFile };
  return { events: [], nextId: 1, legacyFile: null };
}

function readJournal(file: string, logger: Logger, now: Date): Omit<LoadedEvents, 'legacyFile'> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    moveAside(file, 'events journal', errorMessage(err), logger, now);
    return { events: [], nextId: 1 };
  }
  const { values, bad, torn } = readJsonLines(text, isJournalLine);
  const byId = new Map<number, EventRecord>();
  let nextId = 1;
  for (const value of values) {
    if (isHeader(value)) nextId = Math.max(nextId, value.next_id);
    else if (isDrop(value)) {
      byId.delete(value.drop);
      nextId = Math.max(nextId, value.drop + 1);
    } else {
      byId.set(value.event_id, value);
      nextId = Math.max(nextId, value.event_id + 1);
    }
  }
  const events = [...byId.values()].sort((a, b) => a.event_id - b.event_id);
  if (bad.length > 0) {
    const aside = setAside(file, bad.map((b) => `${b.text}\n`).join(''), logger, now);
    // The original stays whole if its bad lines could not be kept elsewhere: rename it rather than compact over it.
    if (!aside) moveAside(file, 'events journal', 'its unreadable lines could not be kept aside', logger, now);
    const lost =
      bad.length === 1 && torn
        ? `1 torn line (line ${bad[0].line}, an interrupted write)`
        : `${plural(bad.length, 'unreadable line')} (line ${bad.map((b) => b.line).join(', ')}${torn ? '; the last one torn' : ''})`;
    logger.warn(
      `events journal: ${plural(events.length, 'record')} kept, ${lost} moved aside to ${aside ?? 'the renamed file'}`,
    );
  }
  return { events, nextId };
}

interface LegacyEventFile {
  next_id: number;
  events: EventRecord[];
}

function readLegacy(file: string, logger: Logger, now: Date): Omit<LoadedEvents, 'legacyFile'> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    moveAside(file, 'events file', errorMessage(err), logger, now);
    return { events: [], nextId: 1 };
  }
  const idFrom = (events: EventRecord[], stated: unknown) =>
    Math.max(1, typeof stated === 'number' ? stated : 1, ...events.map((e) => e.event_id + 1));
  try {
    const data = JSON.parse(text) as Partial<LegacyEventFile> | null;
    if (data && Array.isArray(data.events) && data.events.every(isEventRecord)) {
      logger.info(`events file ${file}: ${plural(data.events.length, 'record')} moved into the events journal`);
      return { events: data.events, nextId: idFrom(data.events, data.next_id) };
    }
  } catch {
    // Damaged: salvage below.
  }
  const salvaged = salvageArray(text, 'events', isEventRecord);
  if (!salvaged || salvaged.values.length === 0) {
    moveAside(file, 'events file', 'no event record in it could be read', logger, now);
    return { events: [], nextId: 1 };
  }
  // Cut off right after a complete record: nothing unreadable to keep, only the end is missing.
  const aside = salvaged.unreadable.length > 0 ? setAside(file, salvaged.unreadable.join('\n'), logger, now) : null;
  if (salvaged.unreadable.length > 0 && !aside)
    moveAside(file, 'events file', 'its unreadable part could not be kept aside', logger, now);
  const lost =
    salvaged.unreadable.length > 0
      ? `${plural(salvaged.unreadable.length, 'unreadable part')} moved aside to ${aside ?? 'the renamed file'}`
      : 'its end was cut off';
  logger.warn(`events file ${file}: ${plural(salvaged.values.length, 'record')} kept, ${lost}`);
  const stated = /"next_id"\s*:\s*(\d+)/.exec(text)?.[1];
  return {
    events: salvaged.values,
    nextId: idFrom(salvaged.values, stated === undefined ? undefined : Number(stated)),
  };
}
