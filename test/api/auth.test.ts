import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import jwt from 'jsonwebtoken';
import { ADMIN, API_TOKEN, call, login, startTestServer, type TestServer } from '../helpers/test-server.js';

function sessionCookie(token: string): string {
  return `svc_session=${token}`;
}

describe('sign-in, sessions and the UI tier', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('health is public and says healthy with a version', async () => {
    const res = await call(server.url, '/api/health');
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'healthy');
    assert.match(String(res.body.version), /^\d+\.\d+\.\d+/);
  });

  test('login sets an HttpOnly, SameSite=Strict, 12-hour svc_session cookie', async () => {
    const res = await call(server.url, '/api/auth', { body: ADMIN });
    assert.equal(res.status, 200);
    const cookie = res.headers.get('set-cookie') ?? '';
    assert.match(cookie, /^svc_session=[\w-]+\.[\w-]+\.[\w-]+;/);
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Strict/i);
    assert.match(cookie, /Path=\//);
    assert.match(cookie, /Max-Age=43200/);
    assert.doesNotMatch(cookie, /Secure/i, 'plain http must not mark the cookie Secure');
  });

  test('a login/me/logout round trip works', async () => {
    const cookie = await login(server.url);
    const me = await call(server.url, '/api/ui/me', { cookie });
    assert.equal(me.status, 200);
    assert.deepEqual(me.body, { username: ADMIN.username });

    const out = await call(server.url, '/api/logout', { method: 'POST', cookie });
    assert.equal(out.status, 200);
    assert.deepEqual(out.body, { ok: true });
    assert.match(out.headers.get('set-cookie') ?? '', /svc_session=;.*Max-Age=0/);
  });

  test('logout without a session still answers ok', async () => {
    const res = await call(server.url, '/api/logout', { method: 'POST' });
    assert.equal(res.status, 200);
  });

  test('wrong password and wrong username are 403 with a JSON error', async () => {
    const a = await call(server.url, '/api/auth', {
      body: { ...ADMIN, password: 'nope' },
      headers: { 'x-forwarded-for': 'x' },
    });
    assert.equal(a.status, 403);
    assert.equal(a.body.ok, false);
    assert.match(String(a.body.error), /wrong username or password/i);
    const b = await call(server.url, '/api/auth', { body: { ...ADMIN, username: 'root' } });
    assert.equal(b.status, 403);
  });

  test('a login body without strings is 400', async () => {
    const res = await call(server.url, '/api/auth', { body: { username: 1 } });
    assert.equal(res.status, 400);
  });

  test('malformed JSON is a 400 JSON error, not an HTML page', async () => {
    const res = await call(server.url, '/api/auth', {
      rawBody: '{"username":',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 400);
    assert.equal(res.headers.get('content-type')?.startsWith('application/json'), true);
    assert.equal(res.body.ok, false);
  });

  test('UI routes refuse a missing session with 401', async () => {
    const res = await call(server.url, '/api/ui/me');
    assert.equal(res.status, 401);
    assert.equal(res.body.ok, false);
  });

  test('UI routes refuse the API bearer token with 401', async () => {
    const res = await call(server.url, '/api/ui/me', { token: API_TOKEN });
    assert.equal(res.status, 401);
  });

  test('UI routes refuse a JWT signed with alg none', async () => {
    const none = jwt.sign({ sub: ADMIN.username }, '', { algorithm: 'none' });
    const res = await call(server.url, '/api/ui/me', { cookie: sessionCookie(none) });
    assert.equal(res.status, 401);
  });

  test('UI routes refuse a JWT signed with the wrong secret', async () => {
    const forged = jwt.sign({ sub: ADMIN.username }, 'not-the-secret', { algorithm: 'HS256' });
    const res = await call(server.url, '/api/ui/me', { cookie: sessionCookie(forged) });
    assert.equal(res.status, 401);
  });

  test('UI routes refuse a tampered JWT', async () => {
    const cookie = await login(server.url);
    const [header, payload, signature] = cookie.slice('svc_session='.length).split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    claims.sub = 'mallory';
    const tampered = [header, Buffer.from(JSON.stringify(claims)).toString('base64url'), signature].join('.');
    const res = await call(server.url, '/api/ui/me', { cookie: sessionCookie(tampered) });
    assert.equal(res.status, 401);
  });

  test('UI routes refuse an expired JWT', async () => {
    const secret = await import('node:fs').then((fs) => fs.readFileSync(`${server.dataDir}/session-secret`, 'utf8'));
    const real = jwt.decode((await login(server.url)).slice('svc_session='.length)) as { cv: string };
    const expired = jwt.sign({ sub: ADMIN.username, cv: real.cv, exp: Math.floor(Date.now() / 1000) - 60 }, secret, {
      algorithm: 'HS256',
    });
    const res = await call(server.url, '/api/ui/me', { cookie: sessionCookie(expired) });
    assert.equal(res.status, 401);
    const fresh = jwt.sign({ sub: ADMIN.username, cv: real.cv }, secret, {
      algorithm: 'HS256',
      expiresIn: 60,
      jwtid: 'fresh-session',
    });
    assert.equal((await call(server.url, '/api/ui/me', { cookie: sessionCookie(fresh) })).status, 200);
  });

  test('the generated session secret is kept with 0600 permissions', async () => {
    const fs = await import('node:fs');
    const mode = fs.statSync(`${server.dataDir}/session-secret`).mode & 0o777;
    assert.equal(mode, 0o600);
  });

  test('a cross-origin write with a valid session is refused with 403', async () => {
    const cookie = await login(server.url);
    const res = await call(server.url, '/api/logout', {
      method: 'POST',
      cookie,
      headers: { origin: 'http://evil.example' },
    });
    assert.equal(res.status, 403);
    const same = await call(server.url, '/api/logout', { method: 'POST', cookie, headers: { origin: server.url } });
    assert.equal(same.status, 200);
  });

  test('/api/ui/config shows non-secret values only', async () => {
    const cookie = await login(server.url);
    const res = await call(server.url, '/api/ui/config', { cookie });
    assert.equal(res.status, 200);
    assert.equal(typeof res.body.dms_url, 'string');
    assert.equal(typeof res.body.demo, 'boolean');
    const text = JSON.stringify(res.body);
    assert.ok(!text.includes(API_TOKEN), 'the API token must never be returned');
    assert.ok(!text.includes(ADMIN.password), 'the password must never be returned');
  });

  test('unknown API paths are 404 JSON', async () => {
    const res = await call(server.url, '/api/nope');
    assert.equal(res.status, 404);
    assert.equal(res.body.ok, false);
  });

  test('security headers are set on every answer', async () => {
    const res = await call(server.url, '/api/health');
    assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    assert.equal(res.headers.get('x-powered-by'), null);
  });

  test('the log has one line per request and never a password, token or cookie', async () => {
    const cookie = await login(server.url);
    await call(server.url, '/api/ui/me', { cookie, token: API_TOKEN });
    const logs = server.logs.join('\n');
    assert.match(logs, /POST \/api\/auth 200 \d+\.\dms/);
    assert.ok(!logs.includes(ADMIN.password));
    assert.ok(!logs.includes(API_TOKEN));
    assert.ok(!logs.includes(cookie.split('=')[1]));
  });
});

describe('login throttling', () => {
  test('repeated failures from one address give 429 with a short Retry-After; the right password then gets in', async () => {
    let now = 1_700_000_000_000;
    const server = await startTestServer({}, {}, { now: () => now });
    try {
      let blocked;
      for (let i = 0; i < 20 && !blocked; i++) {
        const res = await call(server.url, '/api/auth', { body: { ...ADMIN, password: `wrong-${i}` } });
        if (res.status === 429) blocked = res;
        else assert.equal(res.status, 403);
      }
      assert.ok(blocked, 'a burst of wrong passwords is slowed down with 429');
      const retryAfter = Number(blocked.headers.get('retry-after'));
      assert.ok(retryAfter > 0 && retryAfter <= 5, `Retry-After ${retryAfter}: loopback waits seconds, never minutes`);
      assert.match(String(blocked.body.error), /try again in \d+ seconds/i);
      assert.equal((await call(server.url, '/api/auth', { body: ADMIN })).status, 429, 'blocked until Retry-After');
      now += retryAfter * 1000;
      assert.equal((await call(server.url, '/api/auth', { body: ADMIN })).status, 200);
    } finally {
      await server.close();
    }
  });
});

describe('no admin configured', () => {
  test('every login is 403', async () => {
    const server = await startTestServer({ SVC_ADMIN_USER: '', SVC_ADMIN_PASSWORD: '' });
    try {
      const res = await call(server.url, '/api/auth', { body: ADMIN });
      assert.equal(res.status, 403);
      assert.match(String(res.body.error), /no admin account/i);
    } finally {
      await server.close();
    }
  });
});

describe('password hash configuration', () => {
  test('SVC_ADMIN_PASSWORD_HASH signs in with the password it was made from', async () => {
    const { hashPassword } = await import('../../server/auth/passwords.js');
    const server = await startTestServer({
      SVC_ADMIN_PASSWORD: '',
      SVC_ADMIN_PASSWORD_HASH: hashPassword('s3cret-hash-pw'),
    });
    try {
      assert.equal(
        (await call(server.url, '/api/auth', { body: { username: ADMIN.username, password: 's3cret-hash-pw' } }))
          .status,
        200,
      );
      assert.equal((await call(server.url, '/api/auth', { body: ADMIN })).status, 403);
    } finally {
      await server.close();
    }
  });
});
