import fsp from 'node:fs/promises';
import type { Trace } from '../engine/model.js';
import type { Logger } from '../log.js';
import { setAside } from '../move-aside.js';
import { salvageArray } from './salvage-json.js';
import { errorMessage } from '../error-message.js';

/** What one segment file holds. `version` lets a later release migrate old files instead of guessing. */
export interface SegmentData {
  version: 1;
  traces: Trace[];
}

/**
 * The first line of a segment written with one trace per line. The file is still one JSON document (readable
 * by every release); the line breaks only frame the records, so damage costs the traces on the damaged lines.
 */
export const FRAMED_HEAD = '{"version":1,"traces":[\n';
export const FRAMED_TAIL = '\n]}\n';

export function isSegmentData(value: unknown): value is SegmentData {
  if (typeof value !== 'object' || value === null) return false;
  const data = value as Record<string, unknown>;
  return (
    data.version === 1 &&
    Array.isArray(data.traces) &&
    data.traces.every((t) => typeof t === 'object' && t !== null && typeof (t as Trace).id === 'string')
  );
}

/** A whole trace, not one of the objects nested in it (which a salvage scan also meets). */
export function isTrace(value: unknown): value is Trace {
  if (typeof value !== 'object' || value === null) return false;
  const t = value as Partial<Trace>;
  return typeof t.id === 'string' && typeof t.rule_id === 'string' && typeof t.document === 'number';
}

/** A line-framed segment, line by line: each line between head and tail is one trace with a trailing comma. */
function salvageFramed(text: string): { values: Trace[]; unreadable: string[] } {
  const values: Trace[] = [];
  const unreadable: string[] = [];
  for (const line of text.slice(FRAMED_HEAD.length).split('\n')) {
    const record = line.endsWith(',') ? line.slice(0, -1) : line;
    if (record.trim() === '' || record === ']}') continue;
    try {
      const value: unknown = JSON.parse(record);
      if (isTrace(value)) values.push(value);
      else unreadable.push(line);
    } catch {
      unreadable.push(line);
    }
  }
  return { values, unreadable };
}

export type ParsedSegment =
  | { intact: true; data: SegmentData }
  /** `traces` are those that still parse; `reason` is the parser's complaint ('' when the JSON parsed but had the wrong shape). */
  | { intact: false; traces: Trace[]; unreadable: string[]; reason: string };

/** The traces of a segment file's text: all of them, or in a damaged one (cut short, garbled) those that still parse. */
export function parseSegment(text: string): ParsedSegment {
  let reason = '';
  try {
    const parsed: unknown = JSON.parse(text);
    if (isSegmentData(parsed)) return { intact: true, data: parsed };
  } catch (err) {
    reason = errorMessage(err);
  }
  const salvaged = text.startsWith(FRAMED_HEAD) ? salvageFramed(text) : salvageArray(text, 'traces', isTrace);
  return { intact: false, traces: salvaged?.values ?? [], unreadable: salvaged?.unreadable ?? [], reason };
}

export type SegmentRead =
  | { ok: true; data: SegmentData; salvaged: boolean }
  /** Nothing in the file could be read as traces (or the file could not be read at all). */
  | { ok: false; reason: string }
  | { ok: 'missing' };

/**
 * Reads one segment. A damaged one keeps every trace that still parses: the unreadable rest goes to
 * `<file>.corrupt-<time>`, the counts to the log, and `salvaged` tells the caller to write the salvaged segment back.
 */
export async function readSegment(file: string, logger: Logger): Promise<SegmentRead> {
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ok: 'missing' };
    return { ok: false, reason: errorMessage(err) };
  }
  const parsed = parseSegment(text);
  if (parsed.intact) return { ok: true, data: parsed.data, salvaged: false };
  const { traces, unreadable, reason } = parsed;
  if (traces.length === 0) return { ok: false, reason: reason || 'not a trace history file' };

  const aside = unreadable.length > 0 ? setAside(file, unreadable.map((u) => `${u}\n`).join(''), logger) : null;
  if (unreadable.length > 0 && !aside)
    return { ok: false, reason: `${reason || 'damaged'}; its unreadable part could not be kept aside` };
  const n = traces.length;
  const lost = aside
    ? `${unreadable.length} unreadable ${unreadable.length === 1 ? 'part' : 'parts'} moved aside to ${aside}`
    : 'its end was cut off';
  logger.warn(`trace history file ${file}: ${n} ${n === 1 ? 'trace' : 'traces'} kept, ${lost}`);
  return { ok: true, data: { version: 1, traces }, salvaged: true };
}
