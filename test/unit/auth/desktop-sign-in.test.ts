import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createDesktopSignIn, redeemDesktopToken } from '../../../server/auth/desktop-sign-in.js';

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

describe('redeeming a desktop token', () => {
  const status = (fn: () => void) => {
    try {
      fn();
      return 200;
    } catch (err) {
      return (err as { status: number }).status;
    }
  };

  test('only callers on this computer may redeem, and each token once', () => {
    const signIn = createDesktopSignIn();
    const cases: Array<[{ remote?: string; local?: string }, number]> = [
      [{ remote: '192.168.1.20', local: '192.168.1.5' }, 403],
      [{ remote: '10.0.0.7', local: '127.0.0.1' }, 403],
      [{ remote: undefined, local: '127.0.0.1' }, 403],
      [{ remote: '::ffff:192.168.1.20', local: '::ffff:192.168.1.5' }, 403],
      [{ remote: '127.0.0.1', local: '127.0.0.1' }, 200],
      [{ remote: '::1', local: '::1' }, 200],
      [{ remote: '::ffff:127.0.0.1', local: '::ffff:127.0.0.1' }, 200],
      [{ remote: '192.168.1.5', local: '192.168.1.5' }, 200],
    ];
    for (const [caller, expected] of cases) {
      const token = signIn.issue();
      assert.equal(
        status(() => redeemDesktopToken(signIn, token, caller)),
        expected,
        JSON.stringify(caller),
      );
    }
    const once = signIn.issue();
    redeemDesktopToken(signIn, once, { remote: '127.0.0.1' });
    assert.equal(
      status(() => redeemDesktopToken(signIn, once, { remote: '127.0.0.1' })),
      401,
    );
  });
});
