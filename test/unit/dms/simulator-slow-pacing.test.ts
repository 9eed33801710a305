import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSlowDms } from '../../../tools/paperless-sim/slow-dms.js';

// The slow profile's time is the whole answer's: what the simulator already spent on it counts in.

const page = (rows: number) => ({
  status: 200,
  body: { count: rows, results: Array.from({ length: rows }, () => ({})) },
});

test('an answer waits out only what is left of its paced time', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  t.mock.method(performance, 'now', () => 1_000);
  const slow = createSlowDms({ latencyMs: 60, perDocumentMs: 2, workers: 1 });
  let answered = false;
  // Begun 40 ms ago: of 60 + 2 × 10 = 80 ms, 40 are left.
  void slow.pace(page(10), 960).then(() => (answered = true));
  t.mock.timers.tick(39);
  await new Promise(setImmediate);
  assert.equal(answered, false);
  t.mock.timers.tick(1);
  await new Promise(setImmediate);
  assert.equal(answered, true);
  assert.equal(slow.busyMs(), 80, "the dms's own time is the profile's, not what was waited");
});

test('an answer whose building took longer than its paced time is not delayed further', async (t) => {
  const timer = t.mock.method(globalThis, 'setTimeout');
  t.mock.method(performance, 'now', () => 1_000);
  const slow = createSlowDms({ latencyMs: 60, perDocumentMs: 2, workers: 1 });
  await slow.pace(page(3), 900);
  assert.equal(timer.mock.callCount(), 0);
  assert.equal(slow.busyMs(), 66);
});
