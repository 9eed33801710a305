import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createReadCosts, fitCosts, pagesMemoryBudget, planPageSize } from '../../../server/dms/read-costs.js';

describe('fitCosts: per request and per row from list answers', () => {
  it('finds 60 ms per request and 2 ms per row although one answer waited in the queue', () => {
    // Five vocabulary lists, a one-row probe and a page on a four-worker host: the fifth list waited for a worker.
    const samples = [
      { rows: 253, ms: 566 },
      { rows: 24, ms: 108 },
      { rows: 5, ms: 70 },
      { rows: 4, ms: 68 },
      { rows: 3, ms: 66 },
      { rows: 7, ms: 74 + 108 },
      { rows: 1, ms: 62 },
    ];
    const fit = fitCosts(samples);
    assert.ok(fit);
    assert.equal(fit.perRowMs, 2);
    assert.equal(fit.perRequestMs, 60);
  });

  it('takes no cost per row from answers that differ by a few rows (small lists and the probe): their noise is larger', () => {
    // The five lists and the probe as a loaded machine timed them on the slow profile: 8.7 ms per row by the fit.
    const samples = [
      { rows: 2, ms: 89 },
      { rows: 4, ms: 106 },
      { rows: 5, ms: 108 },
      { rows: 24, ms: 163 },
      { rows: 7, ms: 164 },
      { rows: 1, ms: 64 },
    ];
    assert.deepEqual(fitCosts(samples), { perRequestMs: 107, perRowMs: 0 });
    const estimate = fitCosts(samples);
    // Pages then follow parallelism and memory, not a cost per row: 1,012 documents over 4 requests in flight
    // (253), within seven pages of 16 KB assumed documents in 24 MiB (219).
    assert.equal(
      planPageSize({ count: 1012, parallel: 4, estimate, documentBytes: null, memoryBytes: 24 * 1024 * 1024 }),
      219,
    );
    assert.equal(
      planPageSize({ count: 1012, parallel: 4, estimate, documentBytes: 12_000, memoryBytes: 24 * 1024 * 1024 }),
      253,
    );
  });

  it('reads the cost per row from the quickest answers: pages that sat unread while the service worked do not count', () => {
    // Four pages asked together: the first was read at once, the others waited while the service evaluated it.
    const samples = [
      { rows: 1, ms: 75 },
      { rows: 253, ms: 566 },
      { rows: 253, ms: 900 },
      { rows: 253, ms: 950 },
      { rows: 1, ms: 62 },
      { rows: 253, ms: 980 },
    ];
    assert.deepEqual(fitCosts(samples), { perRequestMs: 60, perRowMs: 2 });
  });

  it('knows nothing from answers that all had the same number of rows', () => {
    assert.equal(
      fitCosts([
        { rows: 1, ms: 5 },
        { rows: 1, ms: 9 },
      ]),
      null,
    );
    assert.equal(createReadCosts().estimate(), null);
  });

  it('keeps the largest document size seen, from whole-document pages only', () => {
    const costs = createReadCosts();
    costs.record({ rows: 10, ms: 5 });
    assert.equal(costs.documentBytes(), null);
    costs.record({ rows: 10, ms: 5, documentBytes: 120_000 });
    costs.record({ rows: 10, ms: 5, documentBytes: 80_000 });
    assert.equal(costs.documentBytes(), 12_000);
  });
});

describe('planPageSize: rows per request from what the dms costs', () => {
  const slow = { perRequestMs: 60, perRowMs: 2 };
  const MiB = 1024 * 1024;
  it('holds fewer documents at once when the heap is capped (96 MiB: about 90 per page)', () => {
    assert.equal(pagesMemoryBudget(4096 * MiB), 64 * MiB);
    const budget = pagesMemoryBudget(96 * MiB);
    assert.equal(
      planPageSize({ count: 100_000, parallel: 4, estimate: slow, documentBytes: null, memoryBytes: budget }),
      87,
    );
  });
  it('splits a small archive on a slow host into one page per request in flight', () => {
    assert.equal(
      planPageSize({ count: 1000, parallel: 4, estimate: slow, documentBytes: 12_000, memoryBytes: 24 * MiB }),
      250,
    );
  });
  it('makes pages large enough that the per-request cost is a twentieth of the rows on a slow host', () => {
    assert.equal(
      planPageSize({ count: 10_000, parallel: 4, estimate: slow, documentBytes: 2_000, memoryBytes: 24 * MiB }),
      600,
    );
  });
  it('keeps the pages held at once within the memory budget for large documents', () => {
    const size = planPageSize({
      count: 100_000,
      parallel: 4,
      estimate: slow,
      documentBytes: 40_000,
      memoryBytes: 24 * MiB,
    });
    assert.ok(size * 7 * 40_000 <= 24 * 1024 * 1024, `${size} rows of 40 KB`);
    assert.ok(size >= 85);
  });
  it('splits no finer than 100 rows, so a changing run writes no more bulk edits than before', () => {
    assert.equal(
      planPageSize({ count: 120, parallel: 4, estimate: slow, documentBytes: 12_000, memoryBytes: 24 * MiB }),
      100,
    );
  });
  it('uses the caller fallback, or 100, while nothing is known', () => {
    assert.equal(planPageSize({ count: 10_000, parallel: 4, estimate: null, documentBytes: null }), 100);
    assert.equal(planPageSize({ count: 10_000, parallel: 4, estimate: null, documentBytes: null, fallback: 200 }), 200);
  });
  it('on a fast host whose rows cost next to nothing, asks for the most memory allows', () => {
    const size = planPageSize({
      count: 100_000,
      parallel: 4,
      estimate: { perRequestMs: 1, perRowMs: 0 },
      documentBytes: 1_000,
      memoryBytes: 24 * MiB,
    });
    assert.equal(size, 1000);
  });
});
