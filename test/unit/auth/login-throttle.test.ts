import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLoginThrottle } from '../../../server/auth/login-throttle.js';

test('an address is blocked after the limit and free again once the window passes', () => {
  let now = 1_000_000;
  const throttle = createLoginThrottle({ limit: 3, windowMs: 60_000, now: () => now });
  for (let i = 0; i < 3; i++) throttle.recordFailure('a');
  assert.equal(throttle.retryAfter('a'), 60);
  assert.equal(throttle.retryAfter('b'), 0, 'other addresses are not affected');
  now += 30_000;
  assert.equal(throttle.retryAfter('a'), 30);
  now += 30_001;
  assert.equal(throttle.retryAfter('a'), 0);
});

test('a success clears the failures of that address', () => {
  const throttle = createLoginThrottle({ limit: 2 });
  throttle.recordFailure('a');
  throttle.recordSuccess('a');
  throttle.recordFailure('a');
  assert.equal(throttle.retryAfter('a'), 0);
});
