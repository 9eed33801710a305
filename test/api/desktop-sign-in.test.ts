import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADMIN, call, startTestServer, type TestServer } from '../helpers/test-server.js';

describe('the desktop window signs in with a one-time token', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('a fresh token sets the normal session cookie and redirects to the app', async () => {
    const token = server.services.desktopSignIn.issue();
    const res = await call(server.url, `/api/auth/desktop?token=${token}`);
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/');
    const setCookie = res.headers.get('set-cookie') ?? '';
    assert.match(setCookie, /^svc_session=[\w-]+\.[\w-]+\.[\w-]+;/);
    assert.match(setCookie, /HttpOnly/i);
    assert.match(setCookie, /SameSite=Strict/i);

    const me = await call(server.url, '/api/ui/me', { cookie: setCookie.split(';')[0] });
    assert.equal(me.status, 200);
    assert.deepEqual(me.body, { username: ADMIN.username });
  });

  test('a token works only once', async () => {
    const token = server.services.desktopSignIn.issue();
    assert.equal((await call(server.url, `/api/auth/desktop?token=${token}`)).status, 303);
    const again = await call(server.url, `/api/auth/desktop?token=${token}`);
    assert.equal(again.status, 401);
    assert.equal(again.body.ok, false);
    assert.match(String(again.body.error), /already used/);
    assert.equal(again.headers.get('set-cookie'), null);
  });

  test('an unknown, empty, missing or repeated-parameter token is 401 JSON without a cookie', async () => {
    const issued = server.services.desktopSignIn.issue();
    for (const query of ['?token=not-a-token', '?token=', '', `?token=${issued}&token=${issued}`]) {
      const res = await call(server.url, `/api/auth/desktop${query}`);
      assert.equal(res.status, 401, query);
      assert.equal(res.body.ok, false);
      assert.equal(res.headers.get('set-cookie'), null);
    }
  });

  test('a token issued while no admin exists still opens the local window', async () => {
    const bare = await startTestServer({ SVC_ADMIN_USER: '', SVC_ADMIN_PASSWORD: '' });
    try {
      const res = await call(bare.url, `/api/auth/desktop?token=${bare.services.desktopSignIn.issue()}`);
      assert.equal(res.status, 303);
      const me = await call(bare.url, '/api/ui/me', { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] });
      assert.equal(me.status, 200);
      const login = await call(bare.url, '/api/auth', { body: ADMIN });
      assert.equal(login.status, 403, 'the LAN still has no way in without an admin account');
    } finally {
      await bare.close();
    }
  });

  test('the token never appears in the request log', async () => {
    const token = server.services.desktopSignIn.issue();
    await call(server.url, `/api/auth/desktop?token=${token}`);
    assert.ok(server.logs.some((line) => line.includes('/api/auth/desktop 303')));
    assert.ok(!server.logs.some((line) => line.includes(token)));
  });
});
