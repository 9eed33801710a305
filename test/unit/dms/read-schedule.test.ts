import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  fixedSchedule,
  planReadSchedule,
  readSchedule,
  scheduledPages,
  type ReadSchedule,
} from '../../../server/dms/read-schedule.js';
import { createReadCosts } from '../../../server/dms/read-costs.js';

const MiB = 1024 * 1024;
const slow = { perRequestMs: 60, perRowMs: 2 };

type Sizes = Pick<ReadSchedule, 'base' | 'unit'>;
const sizes = (count: number, schedule: Sizes, parallel = 4) =>
  [...scheduledPages(count, schedule, parallel)].map((p) => p.rows);

/** Every page starts where the one before ended: `page` and `pageSize` address the next rows of the list. */
function assertContiguous(count: number, schedule: Sizes): void {
  let offset = 0;
  for (const { page, pageSize, rows } of scheduledPages(count, schedule, 4)) {
    assert.equal((page - 1) * pageSize, offset, `page ${page} of ${pageSize} starts at row ${offset}`);
    offset += rows;
  }
  assert.equal(offset, count);
}

describe('planReadSchedule: the sizes of a read, from the dms costs, the count and the requests in flight', () => {
  it('reads 10,012 documents on a slow host in a ramp, full pages, then halves them for the last two rounds', () => {
    const schedule = planReadSchedule({
      count: 10_012,
      parallel: 4,
      estimate: slow,
      documentBytes: 12_000,
      memoryBytes: 64 * MiB,
    });
    // 600 rows make the request a twentieth of the rows; 64 MiB hold 5,592 documents of 12 KB, more than seven such
    // pages (four in flight, one queued at the dms, the one evaluated, the one recorded). Tail pages of 150 (a
    // request a quarter of its rows); less the page being recorded, 4,992 rows may be asked for and not yet taken.
    assert.deepEqual(schedule, { base: 600, unit: 150, heldRows: 4992 });
    const rows = sizes(10_012, schedule);
    // The first round ramps up (150, 150, 300: its answers come early and one after the other), then full pages.
    assert.deepEqual(rows.slice(0, 3), [150, 150, 300]);
    assert.deepEqual(rows.slice(3, 11), Array<number>(8).fill(600));
    assert.deepEqual(rows.slice(11), [...Array<number>(8).fill(300), ...Array<number>(14).fill(150), 112]);
    assert.ok((rows.length / 10_012) * 1000 <= 20, `${rows.length} requests`);
    assertContiguous(10_012, schedule);
  });

  it('at the memory budget of a heap under 640 MiB, keeps the pages smaller', () => {
    const schedule = planReadSchedule({
      count: 10_012,
      parallel: 4,
      estimate: slow,
      documentBytes: 12_000,
      memoryBytes: 24 * MiB,
    });
    // 24 MiB hold 2,097 documents of 12 KB: seven pages of 298 (a multiple of the tail's 149).
    assert.deepEqual(schedule, { base: 298, unit: 149, heldRows: 1799 });
    assert.deepEqual(sizes(10_012, schedule).slice(0, 3), [149, 149, 298], 'one halving left for the ramp');
    assertContiguous(10_012, schedule);
  });

  it('splits 1,012 documents into two rounds of the four requests in flight, so evaluation starts after half the read', () => {
    const schedule = planReadSchedule({
      count: 1012,
      parallel: 4,
      estimate: slow,
      documentBytes: 12_000,
      memoryBytes: 24 * MiB,
    });
    // The whole archive fits the memory budget: all eight can be asked for while the first is evaluated.
    assert.deepEqual(schedule, { base: 127, unit: 127, heldRows: 1970 });
    assert.deepEqual(sizes(1012, schedule), [...Array<number>(7).fill(127), 123]);
  });

  it('keeps one page per request in flight when a second round would make pages not worth their request', () => {
    // 400 documents: eight pages of 50 would pay 60 ms for 100 ms of rows.
    const schedule = planReadSchedule({ count: 400, parallel: 4, estimate: slow, documentBytes: 12_000 });
    assert.deepEqual(sizes(400, schedule), [100, 100, 100, 100]);
  });

  it('with no cost per row known yet (a cold job: lists and the probe), halves down to the default page', () => {
    const schedule = planReadSchedule({
      count: 10_012,
      parallel: 4,
      estimate: { perRequestMs: 62, perRowMs: 0 },
      documentBytes: null,
      memoryBytes: 24 * MiB,
    });
    // 218 rows: seven pages of 16 KB assumed documents in 24 MiB.
    assert.deepEqual(schedule, { base: 218, unit: 109, heldRows: 1318 });
    assertContiguous(10_012, schedule);
  });

  it('on a fast host whose request costs little against its rows, keeps one size to the end', () => {
    const schedule = planReadSchedule({
      count: 100_000,
      parallel: 4,
      estimate: { perRequestMs: 5, perRowMs: 0.004 },
      documentBytes: 2_000,
      memoryBytes: 24 * MiB,
    });
    assert.deepEqual(schedule, { base: 1000, unit: 1000, heldRows: 11_582 });
  });

  it('keeps the pages held at once within the memory budget, the tail pages included', () => {
    const schedule = planReadSchedule({
      count: 100_000,
      parallel: 4,
      estimate: slow,
      documentBytes: 40_000,
      memoryBytes: 24 * MiB,
    });
    assert.ok(schedule.base * 7 * 40_000 <= 24 * MiB, `${schedule.base} rows of 40 KB`);
    assert.ok((schedule.heldRows + schedule.base) * 40_000 <= 24 * MiB, 'held and recorded within the budget');
    assert.ok(sizes(100_000, schedule).every((rows) => rows <= schedule.base && rows >= 1));
  });
});

describe('scheduledPages', () => {
  it('asks a caller-named size for every page', () => {
    assert.deepEqual(sizes(250, fixedSchedule(100, 4)), [100, 100, 50]);
    assertContiguous(250, fixedSchedule(100, 4));
    assert.equal(fixedSchedule(100, 4).heldRows, 600, 'five requests outstanding and the page being evaluated');
  });

  it('grows only in the first round, and each page number addresses rows right after the last page', () => {
    for (const count of [1, 7, 999, 1012, 4096, 10_012, 33_333])
      for (const schedule of [
        { base: 300, unit: 150 },
        { base: 256, unit: 64 },
        { base: 127, unit: 127 },
      ]) {
        const rows = [...scheduledPages(count, schedule, 4)].map((p) => p.pageSize);
        const full = rows.indexOf(schedule.base);
        assert.ok(
          rows.every((size, i) => i === 0 || i <= full || size <= rows[i - 1]),
          `${count} over ${JSON.stringify(schedule)}: ${rows.join(',')}`,
        );
        assertContiguous(count, schedule);
      }
  });

  it('ramps up from a quarter of the full page with four requests in flight, not below the tail size', () => {
    assert.deepEqual(sizes(33_333, { base: 256, unit: 64 }).slice(0, 4), [64, 64, 128, 256]);
    assert.deepEqual(sizes(33_333, { base: 256, unit: 128 }).slice(0, 3), [128, 128, 256]);
    assert.deepEqual(sizes(33_333, { base: 256, unit: 64 }, 2).slice(0, 2), [256, 256], 'no ramp for two in flight');
    assert.deepEqual(sizes(1012, { base: 127, unit: 127 }), [...Array<number>(7).fill(127), 123]);
  });

  it('plans nothing for an empty list, and stays lazy for a count no dms could serve', () => {
    assert.deepEqual(sizes(0, { base: 300, unit: 150 }), []);
    const [first, , third, fourth] = scheduledPages(5e9, { base: 300, unit: 150 }, 4);
    assert.deepEqual([first.pageSize, third.pageSize, fourth.pageSize], [150, 300, 300]);
  });
});

describe('readSchedule: what a read asks for', () => {
  it("takes the caller's page size, at most `most`, and holds nothing ahead without read-ahead", () => {
    assert.deepEqual(readSchedule(250, undefined, { count: 10_000, ahead: 4, most: 1000 }), fixedSchedule(250, 4));
    assert.deepEqual(readSchedule(5000, undefined, { count: 10_000, ahead: 4, most: 500 }), fixedSchedule(500, 4));
    assert.equal(readSchedule(250, undefined, { count: 10_000, ahead: 0, most: 1000 }).heldRows, 0);
  });

  it("halves the planned full pages to fit `most`, keeping the tail's size", () => {
    const costs = createReadCosts();
    // A slow host seen through a probe and a page: 60 ms per request, 2 ms per row, 12 KB documents.
    costs.record({ rows: 1, ms: 62 });
    costs.record({ rows: 300, ms: 660, documentBytes: 300 * 12_000 });
    // Full pages of 600 (the request a twentieth of the rows), tail pages of 150.
    assert.deepEqual(readSchedule('auto', costs, { count: 100_000, ahead: 4, most: 1000 }), {
      base: 600,
      unit: 150,
      heldRows: 4992,
    });
    assert.deepEqual(readSchedule('auto', costs, { count: 100_000, ahead: 4, most: 300 }), {
      base: 300,
      unit: 150,
      heldRows: 4992,
    });
  });
});
