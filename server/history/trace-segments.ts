import fs from 'node:fs';
import path from 'node:path';
import { Low, type Adapter } from 'lowdb';
import { writeFileAtomic } from '../atomic-write.js';
import type { Logger } from '../log.js';
import { moveAside } from '../move-aside.js';
import { FRAMED_HEAD, FRAMED_TAIL, readSegment, type SegmentData } from './segment-read.js';
import { indexSegment, type SegmentIndex } from './segment-index.js';
import { errorMessage } from '../error-message.js';

export type { SegmentData } from './segment-read.js';

/**
 * One history file: a bounded slice of the trace history, oldest first, written through lowdb's atomic writer.
 * Its traces are held (`db`) while it is the newest or not yet on disk; after that it is held as its file and
 * an index (`cold`), and read again only when a query reaches it.
 */
export type Segment = { seq: number; file: string } & (
  { db: Low<SegmentData>; cold: null } | { db: null; cold: SegmentIndex }
);

export function segmentCount(segment: Segment): number {
  return segment.db ? segment.db.data.traces.length : segment.cold.count;
}

/** Drops a written segment's traces (and the bytes kept for its next rewrite), keeping its index. */
export function coolSegment(segment: Segment): void {
  if (!segment.db) return;
  const { data } = segment.db;
  recent = recent.filter((r) => r.data !== data);
  Object.assign(segment, { db: null, cold: indexSegment(data.traces) });
}

const SEGMENT_NAME = /^traces-(\d{6,})\.json$/;

export function segmentFile(dir: string, seq: number): string {
  return path.join(dir, `traces-${String(seq).padStart(6, '0')}.json`);
}

// The newest segment is rewritten as it fills (traces are only ever appended, never changed): its traces so
// far are kept serialised and UTF-8 encoded, so each trace is serialised and encoded once and a rewrite only
// copies bytes. A batch may end one segment and start the next, so the bytes of the last two segments
// written are held, never the whole history's.
let recent: Array<{ data: SegmentData; count: number; body: Buffer[] }> = [];

/** Compact JSON, one trace per line (the files are for the service; the lines frame records for salvage). */
function encodeSegment(data: SegmentData): Buffer {
  const prior = recent.find((r) => r.data === data && r.count > 0 && r.count <= data.traces.length);
  const fresh = data.traces.slice(prior?.count ?? 0).map((trace) => JSON.stringify(trace));
  const body = prior ? [...prior.body] : [];
  if (fresh.length > 0) body.push(Buffer.from(`${body.length > 0 ? ',\n' : ''}${fresh.join(',\n')}`));
  recent = [{ data, count: data.traces.length, body }, ...recent.filter((r) => r.data !== data)].slice(0, 2);
  return Buffer.concat([Buffer.from(FRAMED_HEAD), ...body, Buffer.from(FRAMED_TAIL)]);
}

/** lowdb's storage for a segment: loaded by `loadSegments`, written atomically from the encoded bytes, readable by the owner only. */
function segmentAdapter(file: string): Adapter<SegmentData> {
  return {
    read: () => Promise.resolve(null),
    write: (data) => writeFileAtomic(file, encodeSegment(data), { mode: 0o600 }),
  };
}

function openDb(file: string): Low<SegmentData> {
  return new Low<SegmentData>(segmentAdapter(file), { version: 1, traces: [] });
}

export function newSegment(dir: string, seq: number): Segment {
  const file = segmentFile(dir, seq);
  return { seq, file, db: openDb(file), cold: null };
}

/**
 * Reads every segment in `dir`, oldest first, one at a time: all but the newest are held as their file and index
 * once read. A damaged segment keeps the traces that still parse (and is written back without the rest, which is
 * kept aside); one with nothing readable is moved aside whole (never overwritten: its content might still matter
 * to someone). A salvaged segment that could not be written back stays held and is in `unwritten`.
 */
export async function loadSegments(
  dir: string,
  logger: Logger,
): Promise<{ segments: Segment[]; unwritten: Segment[] }> {
  fs.mkdirSync(dir, { recursive: true });
  const numbered = fs
    .readdirSync(dir)
    .map((name) => ({ name, match: SEGMENT_NAME.exec(name) }))
    .filter((entry): entry is { name: string; match: RegExpExecArray } => entry.match !== null)
    .map(({ name, match }) => ({ file: path.join(dir, name), seq: Number(match[1]) }))
    .sort((a, b) => a.seq - b.seq);

  const segments: Segment[] = [];
  const unwritten: Segment[] = [];
  for (const { file, seq } of numbered) {
    const read = await readSegment(file, logger);
    if (read.ok === 'missing') continue;
    if (!read.ok) {
      moveAside(file, 'trace history file', read.reason, logger);
      continue;
    }
    const db = openDb(file);
    db.data = read.data;
    const segment: Segment = { seq, file, db, cold: null };
    if (read.salvaged) {
      try {
        await db.write();
      } catch (err) {
        logger.error(`could not write the salvaged trace history ${file}: ${errorMessage(err)}`);
        unwritten.push(segment);
      }
    }
    const previous = segments.at(-1);
    if (previous && !unwritten.includes(previous)) coolSegment(previous);
    segments.push(segment);
  }
  return { segments, unwritten };
}

export function removeSegment(file: string, logger: Logger): void {
  try {
    fs.rmSync(file, { force: true });
  } catch (err) {
    logger.warn(`could not delete old trace history file ${file}: ${errorMessage(err)}`);
  }
}
