import { getHeapStatistics } from 'node:v8';
import { DMS_PAGE_SIZE, DMS_WORKERS } from '../config.js';

// How the service reads documents from the dms: fixed numbers from the configuration, not learnt from the dms's
// answers. A side-by-side measurement found the learnt page sizes and probed worker count no faster than these
// on the slow profiles, and the probe misjudged a one-worker dms on a loaded host (docs/performance.md).

/** The configured read plan (SVC_DMS_PAGE_SIZE, SVC_DMS_WORKERS). */
export interface ReadPlan {
  /** Documents one request asks for; a small read asks for fewer (`readPageSize`). */
  pageSize: number;
  /**
   * Web workers the dms runs (Paperless's PAPERLESS_WEBSERVER_WORKERS): a read keeps this many requests at it and
   * one more waiting in its queue, so a worker that finishes an answer starts on the next at once.
   */
  dmsWorkers: number;
}

export const DEFAULT_READ_PLAN: ReadPlan = { pageSize: DMS_PAGE_SIZE.default, dmsWorkers: DMS_WORKERS.default };

/** A small read is split into pages no smaller than this: a changing run writes once per page (bulk edits). */
const MIN_READ_PAGE = DMS_PAGE_SIZE.min;
/** The most one plain document page asks for. */
export const MAX_READ_PAGE = DMS_PAGE_SIZE.max;

/**
 * Requests outstanding for `workers` requests at the dms: one more waits in its queue, so a worker that writes an
 * answer starts on the next request at once instead of idling while the answer travels and is parsed (on the slow
 * profile one request per worker and none queued left the workers idle 28–59 % of the read, one queued 7–39 %).
 */
export const outstanding = (workers: number): number => (workers > 0 ? workers + 1 : 1);

/**
 * Budget for the pages held at once (in flight, answered and being worked on), as answer bytes: 64 MiB, or a
 * tenth of the heap when it is capped lower. A page's documents are held again as evaluations and traces
 * downstream, so the heap, not the answers, sets the limit.
 */
export function pagesMemoryBudget(heapLimitBytes = getHeapStatistics().heap_size_limit): number {
  return Math.min(64 * 1024 * 1024, Math.floor(heapLimitBytes / 10));
}

/** What one document is assumed to take in an answer: the OCR text of a few pages. */
const ASSUMED_DOCUMENT_BYTES = 16 * 1024;

export interface PageRead {
  /** Matching documents (the dms's count). */
  count: number;
  /** Requests kept at the dms (0: none ahead, a request goes out when the consumer asks). */
  workers: number;
  /** The caller's page size; none: the plan's. */
  asked?: number;
  /** The most this kind of request may ask for (a plain page, an `id__in` chunk). */
  most: number;
  /** Bytes the pages held at once may take (default `pagesMemoryBudget()`). */
  memoryBytes?: number;
}

/**
 * Rows per request: the caller's size when it names one, else the plan's, smaller for a small read so that every
 * worker gets two pages (evaluation overlaps the read instead of waiting for its last large page), never below
 * `MIN_READ_PAGE`; and never so large that the pages held at once (`heldRows`) outgrow the memory budget.
 */
export function readPageSize(plan: ReadPlan, read: PageRead): number {
  // The pages held at once: those outstanding, the one the consumer evaluates and the one it records.
  const held = outstanding(read.workers) + 2;
  const byMemory = Math.floor((read.memoryBytes ?? pagesMemoryBudget()) / ASSUMED_DOCUMENT_BYTES / held);
  const wanted =
    read.asked !== undefined
      ? Math.floor(read.asked)
      : Math.min(plan.pageSize, Math.max(MIN_READ_PAGE, Math.ceil(read.count / (2 * Math.max(1, read.workers)))));
  return Math.max(1, Math.min(wanted, byMemory, read.most));
}

/**
 * Rows that may be asked for and not yet taken by the consumer: the requests outstanding and the page it works on.
 * Without read-ahead nothing is asked for before the consumer takes the last answer.
 */
export const heldRows = (pageSize: number, workers: number): number =>
  workers > 0 ? (outstanding(workers) + 1) * pageSize : 0;
