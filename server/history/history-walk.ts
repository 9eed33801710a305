import type { Trace } from '../engine/model.js';
import type { TraceAt } from './cold-segments.js';
import { candidates, holdsEvent } from './segment-index.js';
import { traceMatches, type TraceQuery } from './trace-query.js';
import { segmentCount, type Segment } from './trace-segments.js';

/**
 * One part of the history as it was when a query began, newest first: traces held in memory, or a file with its
 * index. Only the first `count` traces of a part count: a query that waits for a file does not see later appends.
 */
export type Part =
  | { count: number; traces: readonly Trace[]; file?: undefined }
  | { count: number; file: string; cold: NonNullable<Segment['cold']> };

/** The history newest first: the traces waiting for a batch, then each segment from the newest. */
export function partsOf(pending: readonly Trace[], segments: readonly Segment[]): Part[] {
  const parts: Part[] = [{ count: pending.length, traces: pending }];
  for (let s = segments.length - 1; s >= 0; s--) {
    const segment = segments[s];
    parts.push(
      segment.db
        ? { count: segmentCount(segment), traces: segment.db.data.traces }
        : { count: segment.cold.count, file: segment.file, cold: segment.cold },
    );
  }
  return parts;
}

/** Each part with the position of its oldest trace inside the retention (the newest `retention` traces in all). */
function* visible(parts: readonly Part[], retention: number): Generator<{ part: Part; from: number }> {
  let seen = 0;
  for (const part of parts) {
    if (seen >= retention) return;
    yield { part, from: Math.max(0, part.count - (retention - seen)) };
    seen += part.count;
  }
}

/**
 * Newest first, at most `query.limit`, never outside the retention. A file is read only when its index says it
 * may hold a match, and no further file once the limit is reached.
 */
export async function queryParts(
  parts: readonly Part[],
  query: TraceQuery,
  retention: number,
  read: (file: string, count: number, some: boolean) => Promise<TraceAt>,
): Promise<Trace[]> {
  const result: Trace[] = [];
  for (const { part, from } of visible(parts, retention)) {
    if (result.length >= query.limit) break;
    let at: TraceAt;
    let positions: number[] | 'all' | null = 'all';
    if (part.file === undefined) {
      const { traces } = part;
      at = (i) => traces[i];
    } else {
      positions = candidates(part.cold, query, from);
      if (positions === null) continue;
      at = await read(part.file, part.count, positions !== 'all');
    }
    const take = (i: number) => {
      const trace = at(i);
      if (trace && traceMatches(trace, query)) result.push(trace);
    };
    if (positions === 'all') for (let i = part.count - 1; i >= from && result.length < query.limit; i--) take(i);
    else for (const i of positions) if (result.length < query.limit) take(i);
  }
  return result;
}

/** Whether a kept trace records this event for this document, from memory and the indexes alone. */
export function hasEventTrace(parts: readonly Part[], retention: number, event: number, document: number): boolean {
  for (const { part, from } of visible(parts, retention)) {
    if (part.file !== undefined) {
      if (holdsEvent(part.cold, event, document, from)) return true;
      continue;
    }
    for (let i = from; i < part.count; i++) {
      const trace = part.traces[i];
      if (trace.event_id === event && trace.document === document) return true;
    }
  }
  return false;
}
