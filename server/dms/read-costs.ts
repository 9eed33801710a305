import { getHeapStatistics } from 'node:v8';

// What a list read costs this dms, learnt from its own answers (issue 28): the time of each list answer against
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
  perRowMs: number;
}

export interface ReadCosts {
  record(sample: ReadCostSample): void;
  /** Per request and per row, once answers with at least two different row counts were seen; else null. */
  estimate(): ReadCostEstimate | null;
  /** Bytes per document of whole-document pages seen, else null. */
  documentBytes(): number | null;
}

const KEEP = 32;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Theil–Sen line through (rows, ms): the median of pairwise slopes. Robust against the few answers that
 * waited in the dms's queue (the fifth of five lists on a four-worker host), which a least-squares fit is not.
 */
export function fitCosts(samples: ReadonlyArray<Pick<ReadCostSample, 'rows' | 'ms'>>): ReadCostEstimate | null {
  const slopes: number[] = [];
  for (let i = 0; i < samples.length; i++)
    for (let j = i + 1; j < samples.length; j++) {
      const dr = samples[j].rows - samples[i].rows;
      if (dr !== 0) slopes.push((samples[j].ms - samples[i].ms) / dr);
    }
  if (slopes.length === 0) return null;
  const perRowMs = Math.max(0, median(slopes));
  const perRequestMs = Math.max(0, median(samples.map((s) => s.ms - perRowMs * s.rows)));
  return { perRequestMs, perRowMs };
}

export function createReadCosts(): ReadCosts {
  const samples: ReadCostSample[] = [];
  const bytes: number[] = [];
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
  };
}

/** Rows asked per request when nothing is known yet (and the floor once something is). */
export const DEFAULT_READ_PAGE = 100;
/** A page's per-request cost should be at most a tenth of its rows' cost. */
const OVERHEAD_SHARE = 10;
/** The most a document page asks for. */
export const MAX_READ_PAGE = 1000;
/**
 * Budget for the pages held at once (in flight plus the one being worked on), as answer bytes: 24 MiB, or a
 * tenth of the heap when it is capped lower (a 96 MiB heap: about 100 documents per page). A page's documents
 * are held again as evaluations and traces downstream, so the heap, not the answers, sets the limit.
 */
export function pagesMemoryBudget(heapLimitBytes = getHeapStatistics().heap_size_limit): number {
  return Math.min(24 * 1024 * 1024, Math.floor(heapLimitBytes / 10));
}
/** Assumed size of a document until a whole-document page was seen (OCR text of a few pages). */
const ASSUMED_DOCUMENT_BYTES = 16 * 1024;

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
  const byMemory = Math.floor(
    (input.memoryBytes ?? pagesMemoryBudget()) /
      ((parallel + 2) * Math.max(1, input.documentBytes ?? ASSUMED_DOCUMENT_BYTES)),
  );
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
