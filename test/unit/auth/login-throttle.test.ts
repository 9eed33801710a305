import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLoginThrottle } from '../../../server/auth/login-throttle.js';

const remote = { key: '203.0.113.9', local: false };
const otherRemote = { key: '198.51.100.7', local: false };
const local = { key: '127.0.0.1', local: true };

test('a source waits longer after each failure past the free ones, and is forgotten after a quiet while', () => {
  let now = 1_000_000;
  const throttle = createLoginThrottle({ freeFailures: 3, forgetAfterMs: 600_000, now: () => now });
  for (let i = 0; i < 3; i++) throttle.recordFailure(remote, 'x');
  assert.equal(throttle.retryAfter(remote, 'x'), 1);
  throttle.recordFailure(remote, 'x');
  assert.equal(throttle.retryAfter(remote, 'x'), 2);
  throttle.recordFailure(remote, 'x');
  assert.equal(throttle.retryAfter(remote, 'x'), 4);
  assert.equal(throttle.retryAfter(otherRemote, 'y'), 0, 'other sources and accounts are not affected');
  now += 4_000;
  assert.equal(throttle.retryAfter(remote, 'x'), 0, 'a delay, not a lock');
  now += 600_001;
  throttle.recordFailure(remote, 'x');
  assert.equal(throttle.retryAfter(remote, 'x'), 0, 'old failures are forgotten');
});

test('the lockout attempt: a thousand remote failures never hold the local admin for more than a few seconds', () => {
  const now = 1_000_000;
  const throttle = createLoginThrottle({ now: () => now });
  for (let i = 0; i < 1000; i++) throttle.recordFailure({ key: `10.0.${i % 250}.${i % 7}`, local: false }, 'admin');
  assert.equal(throttle.retryAfter(local, 'admin'), 0, 'remote failures do not delay the local source');
  assert.equal(throttle.retryAfter(otherRemote, 'admin'), 0, 'nor a remote source that has not failed');
  throttle.recordFailure(otherRemote, 'admin');
  assert.ok(throttle.retryAfter(otherRemote, 'admin') > 0, 'the account is delayed for remote sources that failed');
  assert.ok(throttle.retryAfter(otherRemote, 'admin') <= 60, 'the per-account delay is capped at a minute');
  for (let i = 0; i < 1000; i++) throttle.recordFailure(local, 'admin');
  assert.ok(throttle.retryAfter(local, 'admin') <= 5, 'even a flood of local failures caps the local delay at 5 s');
});

test('remote delays are capped and memory stays bounded', () => {
  const throttle = createLoginThrottle({ maxTracked: 100, now: () => 0 });
  for (let i = 0; i < 100; i++) throttle.recordFailure(remote, 'admin');
  assert.ok(throttle.retryAfter(remote, 'admin') <= 300);
  for (let i = 0; i < 10_000; i++) throttle.recordFailure({ key: `addr-${i}`, local: false }, `user-${i}`);
  assert.equal(throttle.retryAfter(remote, 'admin'), 0, 'the oldest sources were dropped to keep memory bounded');
});

test('a success clears the failures of that source', () => {
  const throttle = createLoginThrottle({ freeFailures: 2 });
  throttle.recordFailure(remote, 'admin');
  throttle.recordSuccess(remote, 'admin');
  throttle.recordFailure(remote, 'root');
  assert.equal(throttle.retryAfter(remote, 'root'), 0);
});

test('a source trying many account names is slowed by its own count over all of them', () => {
  const throttle = createLoginThrottle({ freeFailures: 2, freeSourceFailures: 4, now: () => 0 });
  for (const name of ['a', 'b', 'c', 'd']) throttle.recordFailure(remote, name);
  assert.equal(throttle.retryAfter(remote, 'e'), 1, 'a fifth name waits although each name failed once');
  assert.equal(throttle.retryAfter(otherRemote, 'e'), 0);
});

test('an attempt counted up front and then right leaves no failure and does not prolong the account delay', () => {
  let now = 1_000_000;
  const throttle = createLoginThrottle({ freeFailures: 1, now: () => now });
  throttle.recordFailure(remote, 'admin');
  throttle.recordFailure(remote, 'admin');
  now += 1_000;
  const before = throttle.retryAfter(remote, 'admin');
  const attempt = throttle.begin(otherRemote, 'admin');
  assert.ok(throttle.retryAfter(otherRemote, 'admin') > 0, 'while it is checked, it counts as failed');
  attempt.succeeded();
  assert.equal(throttle.retryAfter(otherRemote, 'admin'), 0);
  assert.equal(throttle.retryAfter(remote, 'admin'), before, 'the guesser waits no longer and no shorter than before');
});
