import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createDesktopSignIn } from '../../../server/auth/desktop-sign-in.js';

describe('desktop one-time sign-in tokens', () => {
  test('a token is accepted exactly once', () => {
    const signIn = createDesktopSignIn();
    const token = signIn.issue();
    assert.equal(signIn.consume(token), true);
    assert.equal(signIn.consume(token), false);
  });

  test('tokens are random, long and URL-safe', () => {
    const signIn = createDesktopSignIn();
    const a = signIn.issue();
    const b = signIn.issue();
    assert.notEqual(a, b);
    assert.match(a, /^[A-Za-z0-9_-]{43}$/);
  });

  test('a token expires after its lifetime and then stays refused', () => {
    let now = 1_000_000;
    const signIn = createDesktopSignIn({ ttlMs: 60_000, now: () => now });
    const token = signIn.issue();
    now += 60_000;
    assert.equal(signIn.consume(token), false);
    const fresh = signIn.issue();
    now += 59_999;
    assert.equal(signIn.consume(fresh), true);
  });

  test('unknown, empty, missing and oversized tokens are refused', () => {
    const signIn = createDesktopSignIn();
    signIn.issue();
    for (const token of ['nope', '', undefined, 'x'.repeat(10_000)]) assert.equal(signIn.consume(token), false);
  });

  test('a refused guess does not burn a real token', () => {
    const signIn = createDesktopSignIn();
    const token = signIn.issue();
    assert.equal(signIn.consume(`${token}x`), false);
    assert.equal(signIn.consume(token), true);
  });

  test('only the newest tokens stay outstanding', () => {
    const signIn = createDesktopSignIn({ maxOutstanding: 2 });
    const first = signIn.issue();
    const second = signIn.issue();
    const third = signIn.issue();
    assert.equal(signIn.consume(first), false);
    assert.equal(signIn.consume(second), true);
    assert.equal(signIn.consume(third), true);
  });
});
