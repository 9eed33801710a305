import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import jwt from 'jsonwebtoken';
import {
  ADMIN,
  API_TOKEN,
  call,
  login,
  startTestServer,
  type TestServer,
  WITH_EXAMPLES,
} from '../helpers/test-server.js';

const WEBHOOK_TOKEN = 'webhook-only-token-0123456789';

/** One request with headers fetch will not let us set (Host). */
function rawRequest(
  base: string,
  route: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
) {
  const url = new URL(route, base);
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Record<string, unknown> }>(
    (resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname + url.search,
          method: options.method ?? (body ? 'POST' : 'GET'),
          headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...options.headers },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
            }),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    },
  );
}

describe('DNS rebinding: the Host allow-list', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ SVC_ALLOWED_HOSTS: 'rules.lan', SVC_PUBLIC_URL: 'https://rules.example.com' });
  });
  after(() => server.close());

  test('a rebound Host cannot sign in, and its attempts are not counted by the throttle', async () => {
    const rebound = {
      host: 'rebind.evil.example:' + new URL(server.url).port,
      origin: 'http://rebind.evil.example:' + new URL(server.url).port,
    };
    const res = await rawRequest(server.url, '/api/auth', { headers: rebound, body: ADMIN });
    assert.equal(res.status, 421);
    assert.equal(res.headers['set-cookie'], undefined);
    assert.match(String(res.body.error), /SVC_ALLOWED_HOSTS/);
    for (let i = 0; i < 30; i++)
      assert.equal(
        (await rawRequest(server.url, '/api/auth', { headers: rebound, body: { ...ADMIN, password: `x${i}` } })).status,
        421,
      );
    assert.equal(
      (await rawRequest(server.url, '/api/health', { headers: rebound })).status,
      421,
      'every route, not only sign-in',
    );
    assert.equal((await rawRequest(server.url, '/', { headers: rebound })).status, 421, 'the web UI too');
    assert.equal(
      (await call(server.url, '/api/auth', { body: { ...ADMIN, password: 'wrong' } })).status,
      403,
      'refused hosts left no failures behind',
    );
  });

  test('loopback names with the right port, listed hosts and the public URL are answered', async () => {
    const port = new URL(server.url).port;
    for (const host of [
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      'rules.lan',
      `rules.lan:${port}`,
      'rules.example.com',
    ]) {
      assert.equal((await rawRequest(server.url, '/api/health', { headers: { host } })).status, 200, host);
    }
    for (const host of ['localhost:1', 'rules.lan.evil.example', 'evil.example', 'rules.lan@evil.example']) {
      assert.equal((await rawRequest(server.url, '/api/health', { headers: { host } })).status, 421, host);
    }
  });

  test('writes are checked against the allowed origins, not against the Host the request names', async () => {
    const cookie = await login(server.url);
    const port = new URL(server.url).port;
    const write = (origin: string, host = `127.0.0.1:${port}`) =>
      rawRequest(server.url, '/api/reload', { method: 'POST', headers: { cookie, origin, host } });
    const ok = (status: number) => status === 200;
    assert.ok(ok((await write(`http://localhost:${port}`)).status));
    assert.ok(
      ok((await write('https://rules.example.com', 'rules.example.com')).status),
      'behind an https proxy the public origin is ours',
    );
    assert.equal((await write('http://rules.example.com.evil.example')).status, 403);
    assert.equal(
      (await write('http://evil.example', 'rules.lan')).status,
      403,
      'an allowed Host does not make any Origin ok',
    );
  });

  test('with SVC_PUBLIC_URL set, a cookie write is accepted from exactly that origin or the service own loopback page', async () => {
    const cookie = await login(server.url);
    const write = (origin: string) =>
      rawRequest(server.url, '/api/reload', { method: 'POST', headers: { cookie, origin, host: 'rules.example.com' } });
    assert.equal((await write('https://rules.example.com:443')).status, 200);
    // The page the service itself serves at loopback (first-start link, desktop window) still saves.
    assert.equal((await write(`http://127.0.0.1:${new URL(server.url).port}`)).status, 200);
    for (const origin of [
      'http://rules.example.com',
      'http://rules.example.com:8080',
      'https://rules.example.com:8443',
      'https://sub.rules.example.com',
      `http://rules.lan:${new URL(server.url).port}`,
      `http://localhost:${Number(new URL(server.url).port) + 1}`,
    ]) {
      assert.equal((await write(origin)).status, 403, origin);
    }
  });
});

describe('Origin without SVC_PUBLIC_URL: loopback and allowed hosts at the service own port', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ SVC_ALLOWED_HOSTS: 'rules.lan,proxy.lan:8443' });
  });
  after(() => server.close());

  test('accepts them at our port (or the listed one) and refuses every other port and scheme', async () => {
    const cookie = await login(server.url);
    const port = Number(new URL(server.url).port);
    const write = (origin: string) =>
      rawRequest(server.url, '/api/reload', { method: 'POST', headers: { cookie, origin } });
    for (const origin of [`http://localhost:${port}`, `http://rules.lan:${port}`, 'https://proxy.lan:8443']) {
      assert.equal((await write(origin)).status, 200, origin);
    }
    for (const origin of [
      'http://rules.lan',
      `http://rules.lan:${port + 1}`,
      `http://localhost:${port + 1}`,
      'http://localhost',
      'https://proxy.lan',
    ]) {
      assert.equal((await write(origin)).status, 403, origin);
    }
  });
});

describe('sign-in behind a reverse proxy', () => {
  test('the lockout attempt: remote clients cannot keep the local admin out', async () => {
    const server = await startTestServer({ SVC_TRUST_PROXY: 'loopback' });
    try {
      let slowed = 0;
      for (let i = 0; i < 40; i++) {
        const res = await call(server.url, '/api/auth', {
          body: { ...ADMIN, password: `guess-${i}` },
          headers: { 'x-forwarded-for': `203.0.113.${i % 4}` },
        });
        if (res.status === 429) slowed++;
        else assert.equal(res.status, 403);
      }
      assert.ok(slowed > 0, 'the attacker is slowed down');
      assert.equal(
        (await call(server.url, '/api/auth', { body: ADMIN })).status,
        200,
        'the admin on this computer signs in at once',
      );
    } finally {
      await server.close();
    }
  });

  test('without SVC_TRUST_PROXY a forged X-Forwarded-For does not give each attempt a fresh address', async () => {
    const server = await startTestServer();
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) {
        statuses.push(
          (
            await call(server.url, '/api/auth', {
              body: { ...ADMIN, password: `guess-${i}` },
              headers: { 'x-forwarded-for': `198.51.100.${i}` },
            })
          ).status,
        );
      }
      assert.ok(statuses.includes(429), `all attempts count against one source: ${statuses.join(',')}`);
      assert.equal(
        (await call(server.url, '/api/auth', { body: ADMIN })).status,
        200,
        'a proxied flood does not slow the direct loopback admin',
      );
    } finally {
      await server.close();
    }
  });
});

describe('sessions that end', () => {
  test('logout revokes the session server-side, also after a restart', async () => {
    const first = await startTestServer();
    const cookie = await login(first.url);
    const other = await login(first.url);
    assert.equal((await call(first.url, '/api/logout', { method: 'POST', cookie })).status, 200);
    assert.equal(
      (await call(first.url, '/api/ui/me', { cookie })).status,
      401,
      'the copied old cookie no longer works',
    );
    assert.equal((await call(first.url, '/api/ui/me', { cookie: other })).status, 200, 'other sessions stay');
    await first.close();
    const second = await startTestServer({}, { dataDir: first.dataDir, rulesDir: first.rulesDir });
    try {
      assert.equal((await call(second.url, '/api/ui/me', { cookie })).status, 401, 'a restart keeps the revocation');
      assert.equal((await call(second.url, '/api/ui/me', { cookie: other })).status, 200);
    } finally {
      await second.close();
    }
  });

  test('a token without exp, or older than the session lifetime, is refused', async () => {
    const server = await startTestServer();
    try {
      const secret = fs.readFileSync(path.join(server.dataDir, 'session-secret'), 'utf8');
      const { cv } = jwt.decode((await login(server.url)).slice('svc_session='.length)) as { cv: string };
      const noExp = jwt.sign({ sub: ADMIN.username, cv }, secret, { algorithm: 'HS256', jwtid: 'a' });
      const old = jwt.sign({ sub: ADMIN.username, cv, iat: Math.floor(Date.now() / 1000) - 13 * 3600 }, secret, {
        algorithm: 'HS256',
        jwtid: 'b',
        expiresIn: 30 * 24 * 3600,
      });
      assert.equal((await call(server.url, '/api/ui/me', { cookie: `svc_session=${noExp}` })).status, 401);
      assert.equal((await call(server.url, '/api/ui/me', { cookie: `svc_session=${old}` })).status, 401);
    } finally {
      await server.close();
    }
  });
});

describe('scoped tokens', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ SVC_WEBHOOK_TOKEN: WEBHOOK_TOKEN });
  });
  after(() => server.close());

  test('the webhook token calls the webhook and nothing else', async () => {
    const hook = await call(server.url, '/api/webhook/dms', { token: WEBHOOK_TOKEN, body: { document_id: 1 } });
    assert.equal(hook.status, 202);
    assert.equal((await call(server.url, '/api/traces', { token: WEBHOOK_TOKEN })).status, 401, 'cannot read traces');
    assert.equal((await call(server.url, '/api/events', { token: WEBHOOK_TOKEN })).status, 401, 'cannot list jobs');
    assert.equal(
      (await call(server.url, '/api/run?document=1', { method: 'POST', token: WEBHOOK_TOKEN })).status,
      401,
      'cannot run',
    );
    assert.equal(
      (await call(server.url, '/api/events/1/revert', { method: 'POST', token: WEBHOOK_TOKEN })).status,
      401,
      'cannot revert',
    );
    assert.equal(
      (await call(server.url, '/api/traces', { token: API_TOKEN })).status,
      200,
      'the API token remains the scripting token',
    );
  });

  test('with only SVC_API_TOKEN the webhook accepts it and the log recommends the split', async () => {
    const only = await startTestServer();
    try {
      assert.equal(
        (await call(only.url, '/api/webhook/dms', { token: API_TOKEN, body: { document_id: 1 } })).status,
        202,
      );
      assert.ok(only.logs.some((line) => /set SVC_WEBHOOK_TOKEN/.test(line)));
      assert.ok(!server.logs.some((line) => /set SVC_WEBHOOK_TOKEN and put/.test(line)));
    } finally {
      await only.close();
    }
  });
});

describe('no secrets in public answers or logs', () => {
  test('a dms URL with user info is refused at start with a message naming SVC_DMS_TOKEN', async () => {
    await assert.rejects(
      startTestServer({ SVC_DMS_URL: 'http://paperless:hunter2@127.0.0.1:9' }),
      /SVC_DMS_URL must not contain a user name or password.*SVC_DMS_TOKEN/,
    );
  });
});

describe("stored data is the owner's only", () => {
  test('everything in the data dir is 0600 (files) or 0700 (folders): traces, events, drafts, secrets, settings', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-rules-modes-'));
    fs.mkdirSync(path.join(dataDir, 'old'), { mode: 0o755 });
    fs.writeFileSync(path.join(dataDir, 'old', 'left-over.json'), '{}', { mode: 0o644 });
    const server = await startTestServer({}, { dataDir }, WITH_EXAMPLES);
    try {
      const cookie = await login(server.url);
      const id = Buffer.from('inbox.yml').toString('base64url');
      assert.equal(
        (
          await call(server.url, `/api/ui/rules/${id}?draft=true`, {
            cookie,
            method: 'PUT',
            rawBody: 'rules:\n  - id: d\n',
          })
        ).status,
        200,
      );
      assert.equal(
        (await call(server.url, '/api/run?document=1&dry_run=true', { method: 'POST', token: API_TOKEN })).status,
        200,
      );
      assert.equal((await call(server.url, '/api/logout', { method: 'POST', cookie })).status, 200);
      await server.close();
      const loose: string[] = [];
      const walk = (dir: string) => {
        for (const name of fs.readdirSync(dir)) {
          const entry = path.join(dir, name);
          const stat = fs.statSync(entry);
          if ((stat.mode & 0o777) !== (stat.isDirectory() ? 0o700 : 0o600))
            loose.push(`${entry} ${(stat.mode & 0o777).toString(8)}`);
          if (stat.isDirectory()) walk(entry);
        }
      };
      walk(dataDir);
      assert.deepEqual(loose, []);
      assert.equal(fs.statSync(dataDir).mode & 0o777, 0o700);
      assert.ok(fs.readdirSync(path.join(dataDir, 'traces')).length > 0, 'traces were written');
      assert.ok(fs.existsSync(path.join(dataDir, 'drafts', 'inbox.yml')), 'the draft was written');
    } finally {
      await server.close();
    }
  });
});
