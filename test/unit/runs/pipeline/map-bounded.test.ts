import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mapBounded } from '../../../../server/runs/pipeline/map-bounded.js';

describe('mapBounded', () => {
  it('keeps the input order and never has more than the limit in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const results = await mapBounded([5, 1, 4, 2, 3], 2, async (n) => {
      inFlight++;
      most = Math.max(most, inFlight);
      // Yield a varying number of turns so later items can finish first.
      for (let i = 0; i < n; i++) await Promise.resolve();
      inFlight--;
      return n * 10;
    });
    assert.deepEqual(results, [50, 10, 40, 20, 30]);
    assert.equal(most, 2);
  });

  it('starts no new item once stop() says so and returns only what ran', async () => {
    const started: number[] = [];
    const results = await mapBounded(
      [1, 2, 3, 4],
      1,
      async (n) => {
        started.push(n);
        return n;
      },
      () => started.length >= 2,
    );
    assert.deepEqual(started, [1, 2]);
    assert.deepEqual(results, [1, 2]);
  });
});
