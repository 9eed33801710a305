import type { Trace } from '../engine/model.js';
import type { Logger } from '../log.js';
import { traceMatches, type TraceQuery } from './trace-query.js';
import { loadSegments, newSegment, removeSegment, type Segment } from './trace-segments.js';
import { errorMessage } from '../error-message.js';

/** The persistent execution history (docs/decisions.md#stored-data). Appends are buffered and written in batches. */
export interface TraceStore {
  /** Queues traces for the next batch write; they are visible to `query` at once. */
  append(traces: Trace[]): void;
  /** Newest first, at most `query.limit`, never older than the retention window. */
  query(query: TraceQuery): Trace[];
  /** Traces currently kept (at most the retention). */
  count(): number;
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

  const segments: Segment[] = await loadSegments(dir, logger);
  let nextSeq = (segments.at(-1)?.seq ?? 0) + 1;
  let pending: Trace[] = [];
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const stored = () => segments.reduce((n, s) => n + s.db.data.traces.length, 0);

  /** Drops whole files that lie entirely outside the retention window; `query` hides the partial rest. */
  const applyRetention = (): Segment[] => {
    const dropped: Segment[] = [];
    let total = stored();
    while (segments.length > 1 && total - segments[0].db.data.traces.length >= retention) {
      const oldest = segments.shift() as Segment;
      total -= oldest.db.data.traces.length;
      dropped.push(oldest);
    }
    return dropped;
  };

  /** Moves a batch into the in-memory segments at once, so queries never miss a trace waiting for the disk. */
  const place = (batch: Trace[]): { touched: Set<Segment>; dropped: Segment[] } => {
    const touched = new Set<Segment>();
    for (const trace of batch) {
      let active = segments.at(-1);
      if (!active || active.db.data.traces.length >= segmentSize) {
        active = newSegment(dir, nextSeq++);
        segments.push(active);
      }
      active.db.data.traces.push(trace);
      touched.add(active);
    }
    return { touched, dropped: applyRetention() };
  };

  // Writes drain what is dirty, one pass at a time with at most one more queued: however far the disk falls
  // behind, memory holds the files still to write and the names of dropped files, never a queue of batches
  // (a dropped segment's traces are freed at once).
  const dirty = new Set<Segment>();
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
        await segment.db.write();
      } catch (err) {
        // A full disk should not stop runs: the traces stay in memory and the file is written again at the next
        // flush (a later batch, the timer, or the stop), not in a loop within this pass.
        logger.error(`could not write trace history ${segment.file}: ${errorMessage(err)}`);
        failed.push(segment);
      }
    }
    for (const segment of failed) if (segments.includes(segment)) dirty.add(segment);
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
      const result: Trace[] = [];
      let seen = 0;
      const visit = (trace: Trace) => {
        seen += 1;
        if (seen > retention || result.length >= query.limit) return false;
        if (traceMatches(trace, query)) result.push(trace);
        return true;
      };
      for (let i = pending.length - 1; i >= 0; i--) if (!visit(pending[i])) return result;
      for (let s = segments.length - 1; s >= 0; s--) {
        const traces = segments[s].db.data.traces;
        for (let i = traces.length - 1; i >= 0; i--) if (!visit(traces[i])) return result;
      }
      return result;
    },

    count() {
      return Math.min(retention, stored() + pending.length);
    },

    flush,

    async close() {
      closed = true;
      await flush();
    },
  };
}
