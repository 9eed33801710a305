import { budgetRows, DEFAULT_READ_PAGE, planPageSize, type PagePlanInput, type ReadCosts } from './read-costs.js';

// The sizes of a read's requests, in order. A first round that ramps up, so its answers do not all
// arrive together; full pages while the dms is the bottleneck; then halving pages towards the end: the requests
// in flight finish closer together (no worker left idle while the last large page is read) and the last pages to
// arrive are small, so the evaluation after the dms's last answer is short. Plain pages are addressed by number
// (`page`, `page_size`), so every size divides the offset it starts at: the sizes are `base / 2^k`, growing only
// in the ramp.

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
/** A tail page's per-request cost should be at most a quarter of its rows' (the full pages: a twentieth). */
const TAIL_OVERHEAD_SHARE = 4;

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
 * A read's schedule: the caller's page size, or with `'auto'` (or none) the sizes this dms's costs call for, full
 * pages halved (down to the tail's size) until at most `most`. Without read-ahead (`ahead` 0) nothing is asked for
 * before the consumer takes the last answer.
 */
export function readSchedule(
  pageSize: number | 'auto' | undefined,
  costs: ReadCosts | undefined,
  read: { count: number; ahead: number; most: number },
): ReadSchedule {
  const { count, ahead, most } = read;
  const schedule =
    typeof pageSize === 'number'
      ? fixedSchedule(Math.min(most, Math.max(1, Math.floor(pageSize))), ahead)
      : plannedSchedule(costs, count, ahead, most);
  return ahead > 0 ? schedule : { ...schedule, heldRows: 0 };
}

function plannedSchedule(costs: ReadCosts | undefined, count: number, ahead: number, most: number): ReadSchedule {
  const planned = planReadSchedule({
    count,
    parallel: Math.max(1, ahead),
    estimate: costs?.estimate() ?? null,
    documentBytes: costs?.documentBytes() ?? null,
  });
  let { base } = planned;
  while (base > most && base > planned.unit) base /= 2;
  return base <= most ? { ...planned, base } : fixedSchedule(most, ahead);
}

/**
 * The first round's sizes before the full pages: `s, s, 2s, …, base / 2` with `s` = `base / 2^(parallel − 2)` (no
 * smaller than `unit`), covering `base` rows. The first answers come early and one after the other instead of
 * together, so evaluation starts sooner and each answer is taken while the dms works on the next; every size still
 * divides the offset it starts at (`s` at 0 and `s`, `2s` at `2s`, …).
 */
function rampSizes(base: number, unit: number, parallel: number): number[] {
  let halvings = 0;
  while (halvings < parallel - 2 && base % 2 ** (halvings + 1) === 0 && base / 2 ** (halvings + 1) >= unit) halvings++;
  if (halvings === 0) return [];
  const smallest = base / 2 ** halvings;
  return [smallest, ...Array.from({ length: halvings }, (_, i) => smallest * 2 ** i)];
}

/**
 * The pages covering `count` rows: the first round's ramp (`rampSizes`), full pages, then each size halved once
 * the rows left are at most `TAIL_ROUNDS` rounds of it over the requests in flight, down to `unit`. Lazy: the
 * count is the dms's word.
 */
export function* scheduledPages(
  count: number,
  schedule: Pick<ReadSchedule, 'base' | 'unit'>,
  parallel: number,
): Generator<ScheduledPage> {
  const unit = Math.max(1, schedule.unit);
  let size = Math.max(unit, schedule.base);
  let offset = 0;
  const tailFrom = (rows: number) => count - offset <= TAIL_ROUNDS * Math.max(1, parallel) * rows;
  if (!tailFrom(size))
    for (const rows of rampSizes(size, unit, parallel)) {
      yield { page: offset / rows + 1, pageSize: rows, rows };
      offset += rows;
    }
  while (offset < count) {
    while (size > unit && size % 2 === 0 && tailFrom(size)) size /= 2;
    yield { page: offset / size + 1, pageSize: size, rows: Math.min(size, count - offset) };
    offset += size;
  }
}
