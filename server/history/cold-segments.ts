import fsp from 'node:fs/promises';
import type { Trace } from '../engine/model.js';
import { errorMessage } from '../error-message.js';
import type { Logger } from '../log.js';
import { FRAMED_HEAD, isTrace, parseSegment } from './segment-read.js';

/**
 * Cold segments read whole by queries that stay held: the newest ones read, since queries walk from the newest file
 * and stop at their limit (the traces page asks again and again for the newest traces).
 */
export const COLD_CACHE_SEGMENTS = 2;

/** The trace at a position of a segment (0 the oldest), undefined when the file no longer holds it. */
export type TraceAt = (position: number) => Trace | undefined;

/** Reads the traces of segments held as their file alone, keeping the newest few read whole. */
export interface ColdReader {
  /**
   * The file's traces by position (`count` of them, as indexed). `some`: the caller wants a few positions only,
   * so only their lines are parsed and nothing is cached. A file gone (retention deleted it meanwhile) or
   * unreadable has none.
   */
  read(file: string, count: number, some: boolean): Promise<TraceAt>;
  /** Retention deleted the file: its traces are no longer kept. */
  forget(file: string): void;
  /** Traces held by the cache, and files read since the store opened. */
  stats(): { cached: number; reads: number };
}

const NONE: TraceAt = () => undefined;

/** Positions of a file read back shorter than its index (damaged since) are aligned at its newest end. */
const byPosition =
  (traces: readonly Trace[], count: number): TraceAt =>
  (i) =>
    traces[i + traces.length - count];

/** Segment files are numbered with at least six digits: a longer name is a newer file. */
const newer = (a: string, b: string) => a.length > b.length || (a.length === b.length && a > b);

export function createColdReader(logger: Logger, live: (file: string) => boolean): ColdReader {
  const cache = new Map<string, readonly Trace[]>();
  let reads = 0;

  const whole = (file: string, text: string): readonly Trace[] => {
    const parsed = parseSegment(text);
    if (parsed.intact) return parsed.data.traces;
    // Damaged since the start salvaged it (it is never rewritten): what still parses is shown; the next start sets
    // the rest aside.
    logger.warn(`trace history file ${file} is damaged: ${parsed.traces.length} traces readable`);
    return parsed.traces;
  };

  /** One trace per line, as the service writes segments: a position's line is parsed alone. */
  const lines = (file: string, text: string, count: number): TraceAt | null => {
    if (!text.startsWith(FRAMED_HEAD)) return null;
    const rows = text.slice(FRAMED_HEAD.length).split('\n');
    if (rows.length !== count + 2 || rows[count] !== ']}') return null;
    let fallback: TraceAt | null = null;
    return (i) => {
      if (fallback) return fallback(i);
      const row = rows[i] as string | undefined;
      try {
        const value: unknown = row === undefined ? null : JSON.parse(row.endsWith(',') ? row.slice(0, -1) : row);
        if (isTrace(value)) return value;
      } catch {
        // parsed whole below
      }
      fallback = byPosition(whole(file, text), count);
      return fallback(i);
    };
  };

  return {
    async read(file, count, some) {
      const hit = cache.get(file);
      if (hit) return byPosition(hit, count);
      let text: string;
      try {
        text = await fsp.readFile(file, 'utf8');
        reads += 1;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
          logger.warn(`could not read trace history file ${file}: ${errorMessage(err)}`);
        return NONE;
      }
      const few = some ? lines(file, text, count) : null;
      if (few) return few;
      const traces = whole(file, text);
      if (live(file)) {
        cache.set(file, traces);
        if (cache.size > COLD_CACHE_SEGMENTS) cache.delete([...cache.keys()].reduce((a, b) => (newer(a, b) ? b : a)));
      }
      return byPosition(traces, count);
    },
    forget(file) {
      cache.delete(file);
    },
    stats() {
      let cached = 0;
      for (const traces of cache.values()) cached += traces.length;
      return { cached, reads };
    },
  };
}
