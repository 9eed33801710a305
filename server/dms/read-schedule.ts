import { budgetRows, DEFAULT_READ_PAGE, planPageSize, type PagePlanInput } from './read-costs.js';

// The sizes of a read's requests, in order (issue 28). Full pages while the dms is the bottleneck, then halving
// pages towards the end: the requests in flight finish closer together (no worker left idle while the last large
// page is read) and the last pages to arrive are small, so the evaluation after the dms's last answer is short.
// Plain pages are addressed by number (`page`, `page_size`), so every size divides the offset it starts at: the
// sizes are `unit × 2^k`, never growing.

export interface ReadSchedule {
  /** Rows of the full pages. */
  base: number;
  /** Rows of the smallest tail pages; `base` is `unit × 2^k`. */
  unit: number;
  /**
   * Rows that may be asked for and not yet taken by the consumer (outstanding, answered and waiting, the page it
   * evaluates): the memory budget less the page it records. Six full pages when memory sets their size (five
   * outstanding and the one evaluated), more of the smaller ones.
   */
  heldRows: number;
}

export interface ScheduledPage {
  /** 1-based page number at `pageSize` (the page starts at row `(page - 1) × pageSize`). */
  page: number;
  pageSize: number;
  /** Rows of the count this page covers (less than `pageSize` for the last one). */
  rows: number;
}

/**
 * A page enters the tail when the rows left are at most this many rounds of the requests in flight: each
 * halving leaves about two rounds of pages for every slot, so they even out before the last round.
 */
const TAIL_ROUNDS = 2;
/** A tail page's per-request cost should be at most a third of its rows' (the full pages: a tenth). */
const TAIL_OVERHEAD_SHARE = 3;

/** The smallest page worth a request at the end: never below the default page (a changing run writes per page). */
function tailFloor(input: PagePlanInput): number {
  const floor = input.fallback ?? DEFAULT_READ_PAGE;
  const e = input.estimate;
  if (!e || e.perRowMs <= 0) return floor;
  return Math.max(floor, Math.ceil((TAIL_OVERHEAD_SHARE * e.perRequestMs) / e.perRowMs));
}

/**
 * Full page size from the dms's costs, memory and parallelism (`planPageSize`), and the tail's smallest size.
 * A read that is all tail (a small archive: at most `TAIL_ROUNDS` rounds of full pages) is split evenly into
 * `TAIL_ROUNDS × parallel` pages when those are still worth their request, else one page per request in flight.
 */
export function planReadSchedule(input: PagePlanInput): ReadSchedule {
  const parallel = Math.max(1, input.parallel);
  const full = planPageSize(input);
  const floor = tailFloor(input);
  const held = (base: number) => Math.max(base, budgetRows(input) - base);
  if (input.count <= TAIL_ROUNDS * parallel * full) {
    const even = Math.ceil(input.count / (TAIL_ROUNDS * parallel));
    const size = even >= floor ? Math.min(even, full) : full;
    return { base: size, unit: size, heldRows: held(size) };
  }
  let levels = 0;
  while (Math.floor(full / 2 ** (levels + 1)) >= floor) levels++;
  const unit = Math.floor(full / 2 ** levels);
  const base = unit * 2 ** levels;
  return { base, unit, heldRows: held(base) };
}

/**
 * A schedule of one size (a caller that names its page size): the requests outstanding (`ahead + 1`) and the page
 * the consumer works on may be asked for and not yet taken, as many pages as before schedules.
 */
export const fixedSchedule = (size: number, ahead: number): ReadSchedule => ({
  base: size,
  unit: size,
  heldRows: (Math.max(0, ahead) + 2) * size,
});

/**
 * The pages covering `count` rows: full pages, then each size halved once the rows left are at most
 * `TAIL_ROUNDS` rounds of it over the requests in flight, down to `unit`. Lazy: the count is the dms's word.
 */
export function* scheduledPages(
  count: number,
  schedule: Pick<ReadSchedule, 'base' | 'unit'>,
  parallel: number,
): Generator<ScheduledPage> {
  const unit = Math.max(1, schedule.unit);
  let size = Math.max(unit, schedule.base);
  let offset = 0;
  while (offset < count) {
    const left = count - offset;
    while (size > unit && size % 2 === 0 && left <= TAIL_ROUNDS * Math.max(1, parallel) * size) size /= 2;
    yield { page: offset / size + 1, pageSize: size, rows: Math.min(size, left) };
    offset += size;
  }
}
