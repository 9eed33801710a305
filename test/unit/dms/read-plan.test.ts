import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_READ_PLAN,
  heldRows,
  MAX_READ_PAGE,
  outstanding,
  pagesMemoryBudget,
  readPageSize,
} from '../../../server/dms/read-plan.js';

const MiB = 1024 * 1024;
const plan = { pageSize: 500, dmsWorkers: 4 };
const roomy = 256 * MiB;

describe('readPageSize: rows per request of a read', () => {
  it('asks for the configured page size on a large read', () => {
    assert.equal(readPageSize(plan, { count: 10_000, workers: 4, most: MAX_READ_PAGE, memoryBytes: roomy }), 500);
    assert.equal(
      readPageSize({ ...plan, pageSize: 800 }, { count: 10_000, workers: 2, most: MAX_READ_PAGE, memoryBytes: roomy }),
      800,
    );
  });

  it('splits a small read into two pages per dms worker, never below 100 rows', () => {
    assert.equal(readPageSize(plan, { count: 1000, workers: 4, most: MAX_READ_PAGE, memoryBytes: roomy }), 125);
    assert.equal(readPageSize(plan, { count: 1000, workers: 1, most: MAX_READ_PAGE, memoryBytes: roomy }), 500);
    assert.equal(readPageSize(plan, { count: 120, workers: 4, most: MAX_READ_PAGE, memoryBytes: roomy }), 100);
  });

  it("takes the caller's page size as given, up to what the request may ask for", () => {
    assert.equal(readPageSize(plan, { count: 10_000, workers: 4, asked: 250, most: 500, memoryBytes: roomy }), 250);
    assert.equal(readPageSize(plan, { count: 10_000, workers: 4, asked: 5000, most: 500, memoryBytes: roomy }), 500);
    assert.equal(readPageSize(plan, { count: 10_000, workers: 4, most: MAX_READ_PAGE, memoryBytes: roomy }), 500);
  });

  it('holds fewer documents at once when the heap is capped (96 MiB: about 90 per page at four workers)', () => {
    assert.equal(pagesMemoryBudget(4096 * MiB), 64 * MiB);
    const memoryBytes = pagesMemoryBudget(96 * MiB);
    const size = readPageSize(plan, { count: 100_000, workers: 4, most: MAX_READ_PAGE, memoryBytes });
    assert.equal(size, 87);
    assert.ok((heldRows(size, 4) + size) * 16 * 1024 <= memoryBytes, 'the pages held and the one recorded fit');
  });
});

describe('requests in flight', () => {
  it('keeps one request per dms worker and one more waiting in its queue', () => {
    assert.equal(outstanding(1), 2);
    assert.equal(outstanding(4), 5);
  });

  it('asks for nothing ahead of the consumer without read-ahead', () => {
    assert.equal(outstanding(0), 1);
    assert.equal(heldRows(500, 0), 0);
  });

  it('defaults to 500-row pages', () => {
    assert.equal(DEFAULT_READ_PLAN.pageSize, 500);
  });
});
