import assert from 'node:assert/strict';
import { test } from 'node:test';
import { trackLiveness } from '../../../server/dms/dms-liveness.js';

interface Ping {
  ok: boolean;
  error?: string;
}

/** A ping the test answers by hand, and a clock it moves. */
function rig() {
  let now = 1_000_000;
  const calls: Array<(result: Ping) => void> = [];
  const ping = () => new Promise<Ping>((resolve) => calls.push(resolve));
  const tracker = trackLiveness(ping, { ttlMs: 5000, slowMs: 2000, now: () => now });
  return { tracker, calls, advance: (ms: number) => (now += ms), at: () => now };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('a dms that answered and then hangs: health keeps the known state, then says since when it has not answered', async () => {
  const { tracker, calls, advance, at } = rig();
  tracker.known();
  calls[0]({ ok: true });
  await settle();
  assert.equal(tracker.known().reachable, true);
  advance(6000);
  const askedAt = at();
  let known = tracker.known();
  assert.equal(calls.length, 2, 'a stale state starts one background ping');
  assert.equal(known.reachable, true, 'a ping in flight does not count against the dms at once');
  advance(2500);
  known = tracker.known();
  assert.equal(calls.length, 2, 'never more than one ping at a time');
  assert.equal(known.reachable, false);
  assert.equal(known.notAnsweringSince, askedAt);
  assert.match(String(known.waitingError), /has not answered since/);
  calls[1]({ ok: true });
  await settle();
  known = tracker.known();
  assert.deepEqual([known.reachable, known.notAnsweringSince], [true, null], 'an answer clears it');
});

test('failures keep the time of the first one that failed', async () => {
  const { tracker, calls, advance } = rig();
  tracker.known();
  const firstAsked = 1_000_000;
  calls[0]({ ok: false, error: 'ECONNREFUSED' });
  await settle();
  advance(6000);
  tracker.known();
  calls[1]({ ok: false, error: 'ECONNREFUSED' });
  await settle();
  const known = tracker.known();
  assert.equal(known.reachable, false);
  assert.equal(known.notAnsweringSince, firstAsked);
  assert.equal(known.waitingError, null, 'the failed ping says why itself');
  assert.equal(known.last?.error, 'ECONNREFUSED');
});

test('the deep check waits for a ping only when the known state is older than the cache time', async () => {
  const { tracker, calls, advance } = rig();
  const deep = tracker.fresh();
  calls[0]({ ok: true });
  assert.equal((await deep).ok, true);
  assert.equal((await tracker.fresh()).ok, true);
  assert.equal(calls.length, 1);
  advance(6000);
  const again = tracker.fresh();
  assert.equal(calls.length, 2);
  calls[1]({ ok: false });
  assert.equal((await again).ok, false);
});

test('a request that found no dms marks it unreachable at once, and the next look pings to clear it', async () => {
  const { tracker, calls, advance, at } = rig();
  tracker.known();
  calls[0]({ ok: true });
  await settle();
  advance(1000);
  const failedAt = at();
  tracker.down('dms GET /api/documents/1/ failed (ECONNREFUSED)');
  const known = tracker.known();
  assert.deepEqual([known.reachable, known.notAnsweringSince], [false, failedAt], 'within the ping TTL, at once');
  assert.equal(known.last?.error, 'dms GET /api/documents/1/ failed (ECONNREFUSED)');
  assert.equal(calls.length, 2, 'the look after a failure pings, though the last ping is fresh');
  calls[1]({ ok: true });
  await settle();
  assert.deepEqual([tracker.known().reachable, tracker.known().notAnsweringSince], [true, null]);
  assert.equal(calls.length, 2, 'an answered ping within the TTL is trusted again');
});
