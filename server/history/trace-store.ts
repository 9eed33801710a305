import type { Trace } from '../engine/model.js';
import type { Logger } from '../log.js';
import type { TraceQuery } from './trace-query.js';
import { coolSegment, loadSegments, newSegment, removeSegment, segmentCount, type Segment } from './trace-segments.js';
import { createColdReader } from './cold-segments.js';
import { hasEventTrace, partsOf, queryParts } from './history-walk.js';
import { errorMessage } from '../error-message.js';

/** Where the kept traces are: in memory, only in their files, or in the cache of files a query read. */
export interface TraceStoreStats {
  /** Held in memory: waiting for a batch, in the newest segment, or in a segment whose write has not succeeded. */
  held: number;
  /** Held as their files alone (with a small index each). */
  cold: number;
  /** Read back from cold files by queries and kept for the next (at most a few segments). */
  cached: number;
  /** Cold files queries have read since the store opened. */
  reads: number;
}

/**
 * The persistent execution history (docs/decisions.md#stored-data). Appends are buffered and written in batches;
 * only the newest segment and the traces not yet on disk are held in memory, older segments are read when a
 * query reaches them (docs/performance.md, "Memory through a burst").
 */
export interface TraceStore {
  /** Queues traces for the next batch write; they are visible to `query` at once. */
  append(traces: Trace[]): void;
  /** Newest first, at most `query.limit`, never older than the retention window. */
  query(query: TraceQuery): Promise<Trace[]>;
  /** Whether a kept trace records this event for this document; answered from memory, never from the files. */
  hasEventTrace(event: number, document: number): boolean;
  /** Traces currently kept (at most the retention). */
  count(): number;
  stats(): TraceStoreStats;
  /** Writes everything buffered; resolves when it is on disk. */
  flush(): Promise<void>;
  /** Flushes and stops the timer; later appends are written at once, never dropped. */
  close(): Promise<void>;
}

export interface TraceStoreOptions {
  dir: string;
  retention: number;
  logger: Logger;
  /** Traces per file; a batch rewrites only the newest file, never the whole history (see docs/decisions.md). */
  segmentSize?: number;
  /** A batch is written this long after its first trace... */
  flushDelayMs?: number;
  /** ...or at once when this many are waiting. */
  flushBatch?: number;
}

export const DEFAULT_SEGMENT_SIZE = 1000;
const DEFAULT_FLUSH_DELAY_MS = 250;
const DEFAULT_FLUSH_BATCH = 500;

/** Opens (or creates) the history in `dir`; corrupt files are moved aside and the store starts anyway. */
export async function openTraceStore(options: TraceStoreOptions): Promise<TraceStore> {
  const { dir, retention, logger } = options;
  const segmentSize = options.segmentSize ?? DEFAULT_SEGMENT_SIZE;
  const flushDelayMs = options.flushDelayMs ?? DEFAULT_FLUSH_DELAY_MS;
  const flushBatch = options.flushBatch ?? DEFAULT_FLUSH_BATCH;

  const { segments, unwritten } = await loadSegments(dir, logger);
  let nextSeq = (segments.at(-1)?.seq ?? 0) + 1;
  let pending: Trace[] = [];
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const stored = () => segments.reduce((n, s) => n + segmentCount(s), 0);
  const cold = createColdReader(logger, (file) => segments.some((s) => s.file === file));

  /** Drops whole files that lie entirely outside the retention window; `query` hides the partial rest. */
  const applyRetention = (): Segment[] => {
    const dropped: Segment[] = [];
    let total = stored();
    while (segments.length > 1 && total - segmentCount(segments[0]) >= retention) {
      const oldest = segments.shift() as Segment;
      total -= segmentCount(oldest);
      cold.forget(oldest.file);
      dropped.push(oldest);
    }
    return dropped;
  };

  /** Moves a batch into the in-memory segments at once, so queries never miss a trace waiting for the disk. */
  const place = (batch: Trace[]): { touched: Set<Segment>; dropped: Segment[] } => {
    const touched = new Set<Segment>();
    for (const trace of batch) {
      let active = segments.at(-1);
      if (!active?.db || active.db.data.traces.length >= segmentSize) {
        active = newSegment(dir, nextSeq++);
        segments.push(active);
      }
      (active.db as NonNullable<Segment['db']>).data.traces.push(trace);
      touched.add(active);
    }
    return { touched, dropped: applyRetention() };
  };

  // Writes drain what is dirty, one pass at a time with at most one more queued: however far the disk falls
  // behind, memory holds the files still to write and the names of dropped files, never a queue of batches
  // (a dropped segment's traces are freed at once).
  const dirty = new Set<Segment>(unwritten);
  const droppedFiles: string[] = [];
  let draining: Promise<void> = Promise.resolve();
  let passQueued = false;

  const writePass = async () => {
    passQueued = false;
    const failed: Segment[] = [];
    // Taken one at a time (a file marked meanwhile is taken too), so a file retention drops while the pass
    // waits for the disk is neither written nor held (a live Set iterator would hold it).
    while (dirty.size > 0) {
      const [segment] = dirty;
      dirty.delete(segment);
      try {
        await segment.db?.write();
      } catch (err) {
        // A full disk should not stop runs: the traces stay in memory and the file is written again at the next
        // flush (a later batch, the timer, or the stop), not in a loop within this pass.
        logger.error(`could not write trace history ${segment.file}: ${errorMessage(err)}`);
        failed.push(segment);
      }
    }
    for (const segment of failed) if (segments.includes(segment)) dirty.add(segment);
    // A full segment on disk is held as its file from now on; one whose write failed stays until it is written.
    for (const segment of segments.slice(0, -1)) if (!dirty.has(segment)) coolSegment(segment);
    // Deleted only here, after the writes, so no write still in flight can bring a dropped file back.
    for (const file of droppedFiles.splice(0)) removeSegment(file, logger);
  };

  const flush = (): Promise<void> => {
    if (timer) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (pending.length > 0) {
      const { touched, dropped } = place(pending);
      pending = [];
      for (const segment of touched) dirty.add(segment);
      for (const segment of dropped) dirty.delete(segment);
      droppedFiles.push(...dropped.map((segment) => segment.file));
    }
    if (dirty.size > 0 && !passQueued) {
      passQueued = true;
      draining = draining.then(writePass);
    }
    return draining;
  };

  return {
    append(traces) {
      pending.push(...traces);
      // After close no timer runs: a late trace (from a run that outlived the shutdown grace) is written at once.
      if (closed || pending.length >= flushBatch) void flush();
      else if (!timer && pending.length > 0) {
        timer = setTimeout(() => void flush(), flushDelayMs);
        timer.unref();
      }
    },

    query(query) {
      return queryParts(partsOf(pending, segments), query, retention, (file, count, some) =>
        cold.read(file, count, some),
      );
    },

    hasEventTrace(event, document) {
      return hasEventTrace(partsOf(pending, segments), retention, event, document);
    },

    count() {
      return Math.min(retention, stored() + pending.length);
    },

    stats() {
      let held = pending.length;
      let coldCount = 0;
      for (const segment of segments) {
        if (segment.db) held += segmentCount(segment);
        else coldCount += segmentCount(segment);
      }
      return { held, cold: coldCount, ...cold.stats() };
    },

    flush,

    async close() {
      closed = true;
      await flush();
    },
  };
}
