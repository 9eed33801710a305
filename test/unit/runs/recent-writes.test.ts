import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRecentWrites } from '../../../server/runs/recent-writes.js';

describe('the webhook echo guard', () => {
  it('reports a document written within the window and forgets it after', () => {
    let now = 1_000_000;
    const guard = createRecentWrites(() => now);
    assert.equal(guard.wasRecentlyWritten(5, 5000), false);
    guard.mark(5);
    now += 4000;
    assert.equal(guard.wasRecentlyWritten(5, 5000), true);
    assert.equal(guard.wasRecentlyWritten(6, 5000), false);
    now += 2000;
    assert.equal(guard.wasRecentlyWritten(5, 5000), false);
  });

  it('a new write restarts the window', () => {
    let now = 0;
    const guard = createRecentWrites(() => now);
    guard.mark(1);
    now = 4000;
    guard.mark(1);
    now = 8000;
    assert.equal(guard.wasRecentlyWritten(1, 5000), true);
  });
});
