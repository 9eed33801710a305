import { getHeapStatistics } from 'node:v8';

// What a list read costs this dms, learnt from its own answers: the time of each list answer against
// its rows gives a cost per request and a cost per row; the page size of a document read follows from them.
// A slow host (60 ms per request, 2 ms per row) wants large pages; a fast one wants pages only as large as
// memory and parallelism allow. Nothing here is a timeout or a limit: only how many rows one request asks for.

export interface ReadCostSample {
  rows: number;
  ms: number;
  /** Bytes of the answer, when it was a page of whole documents (no `fields=`), else undefined. */
  documentBytes?: number;
}

export interface ReadCostEstimate {
  perRequestMs: number;
  /** 0 when the answers seen cannot tell it (`MIN_ROW_SPREAD`). */
  perRowMs: number;
}

export interface ReadCosts {
  record(sample: ReadCostSample): void;
  /** Per request and per row, once answers with at least two different row counts were seen; else null. */
  estimate(): ReadCostEstimate | null;
  /** Bytes per document of whole-document pages seen, else null. */
  documentBytes(): number | null;
  /** What the dms was last seen to serve at once (dms-concurrency.ts): it bounds a read's requests in flight. */
  useConcurrency(served: number | null): void;
  /** Requests the dms was seen to serve at once, else null (never probed, or it could not tell). */
  concurrency(): number | null;
}

const KEEP = 32;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Answers whose row counts differ by fewer rows than this tell the cost of a request, not of a row: five small
 * vocabulary lists (1–24 rows) and the one-row probe differ by tens of milliseconds of noise on a loaded host, more
 * than 24 rows cost even a slow dms, and a cost per row read from them sized a 10,000-document read in 100-row
 * pages. The cost per row is then taken as 0 (unknown): pages are as large as parallelism and memory allow, and
 * the first whole pages teach the real figure.
 */
export const MIN_ROW_SPREAD = 50;

/** The value where the weights sorted by value reach half their sum. */
function weightedMedian(values: Array<{ value: number; weight: number }>): number {
  const sorted = [...values].sort((a, b) => a.value - b.value);
  const half = sorted.reduce((sum, v) => sum + v.weight, 0) / 2;
  let seen = 0;
  for (const v of sorted) {
    seen += v.weight;
    if (seen >= half) return v.value;
  }
  return sorted[sorted.length - 1].value;
}

/**
 * A line through (rows, ms), robust against answers that took longer than the dms needed: the fifth of five
 * lists waiting in a four-worker host's queue, or pages that sat unread while the service evaluated the one
 * before (noise that only adds). So each row count keeps its least time, and the cost per row is the median of
 * pairwise slopes weighted by their row difference (Theil–Sen with weights), so that the wide pairs (a probe and
 * a page) decide it, not the noise between lists a few rows apart.
 */
export function fitCosts(samples: ReadonlyArray<Pick<ReadCostSample, 'rows' | 'ms'>>): ReadCostEstimate | null {
  const least = new Map<number, number>();
  for (const s of samples) least.set(s.rows, Math.min(s.ms, least.get(s.rows) ?? Infinity));
  const points = [...least].map(([rows, ms]) => ({ rows, ms }));
  if (points.length < 2) return null;
  const rows = points.map((p) => p.rows);
  if (Math.max(...rows) - Math.min(...rows) < MIN_ROW_SPREAD)
    return { perRequestMs: Math.max(0, median(points.map((p) => p.ms))), perRowMs: 0 };
  const slopes: Array<{ value: number; weight: number }> = [];
  for (let i = 0; i < points.length; i++)
    for (let j = i + 1; j < points.length; j++) {
      const dr = points[j].rows - points[i].rows;
      slopes.push({ value: (points[j].ms - points[i].ms) / dr, weight: Math.abs(dr) });
    }
  const perRowMs = Math.max(0, weightedMedian(slopes));
  const perRequestMs = Math.max(0, median(points.map((p) => p.ms - perRowMs * p.rows)));
  return { perRequestMs, perRowMs };
}

export function createReadCosts(): ReadCosts {
  const samples: ReadCostSample[] = [];
  const bytes: number[] = [];
  let served: number | null = null;
  return {
    record(sample) {
      samples.push(sample);
      if (samples.length > KEEP) samples.shift();
      if (sample.documentBytes !== undefined && sample.rows > 0) {
        bytes.push(sample.documentBytes / sample.rows);
        if (bytes.length > KEEP) bytes.shift();
      }
    },
    estimate: () => fitCosts(samples),
    documentBytes: () => (bytes.length ? Math.max(...bytes) : null),
    useConcurrency(n) {
      served = n;
    },
    concurrency: () => served,
  };
}

/** Rows asked per request when nothing is known yet (and the floor once something is). */
export const DEFAULT_READ_PAGE = 100;
/**
 * A page's per-request cost should be at most a twentieth of its rows' cost: on a slow host (60 ms per request,
 * 2 ms per row) a tenth left the read at 1.13× the dms's own time for the rows alone (docs/performance.md).
 */
const OVERHEAD_SHARE = 20;
/** The most a document page asks for. */
export const MAX_READ_PAGE = 1000;
/**
 * Budget for the pages held at once (in flight, held and being worked on), as answer bytes: 64 MiB, or a
 * tenth of the heap when it is capped lower (a 96 MiB heap: about 90 documents per page). A page's documents
 * are held again as evaluations and traces downstream, so the heap, not the answers, sets the limit. 64 MiB lets
 * a slow host's pages be large enough for their request to cost a twentieth (about 600 documents of OCR text).
 */
export function pagesMemoryBudget(heapLimitBytes = getHeapStatistics().heap_size_limit): number {
  return Math.min(64 * 1024 * 1024, Math.floor(heapLimitBytes / 10));
}
/** Assumed size of a document until a whole-document page was seen (OCR text of a few pages). */
const ASSUMED_DOCUMENT_BYTES = 16 * 1024;

/** Documents the memory budget holds at once (at the largest size seen, else the assumed size). */
export function budgetRows(input: Pick<PagePlanInput, 'documentBytes' | 'memoryBytes'>): number {
  return Math.floor(
    (input.memoryBytes ?? pagesMemoryBudget()) / Math.max(1, input.documentBytes ?? ASSUMED_DOCUMENT_BYTES),
  );
}

export interface PagePlanInput {
  /** Matching documents (the dms's count). */
  count: number;
  /** Requests the reader keeps in flight. */
  parallel: number;
  estimate: ReadCostEstimate | null;
  documentBytes: number | null;
  /** The caller's page size, used while the dms's costs are unknown. */
  fallback?: number;
  /** Bytes the pages held at once may take (default `pagesMemoryBudget()`). */
  memoryBytes?: number;
}

/**
 * Rows per request: large enough that the per-request cost is a small share of the page (a slow host), small
 * enough that the pages in flight keep every worker busy (a small archive) and fit the memory budget.
 */
export function planPageSize(input: PagePlanInput): number {
  const parallel = Math.max(1, input.parallel);
  // The pages held at once: one per request in flight and one waiting in the dms's queue (document-stream.ts), the
  // one the consumer evaluates and the one it records.
  const byMemory = Math.floor(budgetRows(input) / (parallel + 3));
  const { estimate } = input;
  const byOverhead =
    estimate && estimate.perRowMs > 0
      ? Math.ceil((OVERHEAD_SHARE * estimate.perRequestMs) / estimate.perRowMs)
      : estimate
        ? MAX_READ_PAGE
        : (input.fallback ?? DEFAULT_READ_PAGE);
  // Split for parallelism no finer than the default page: a changing run writes once per page (bulk edits).
  const floor = input.fallback ?? DEFAULT_READ_PAGE;
  const byParallelism = Math.max(floor, Math.ceil(input.count / parallel));
  const size = Math.min(byParallelism, Math.max(byOverhead, floor));
  return Math.max(1, Math.min(size, byMemory, MAX_READ_PAGE));
}
