import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { describe, test } from 'node:test';
import jwt from 'jsonwebtoken';
import { ADMIN, call, login, startTestServer, tempDir } from '../helpers/test-server.js';

/** A POST with headers fetch will not let us set (Host). */
function postWithHost(base: string, route: string, headers: Record<string, string>, body: unknown) {
  const url = new URL(route, base);
  return new Promise<http.IncomingMessage>((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('small hardenings', () => {
  test('a session token issued in the future is refused; a clock a few seconds ahead is not', async () => {
    const server = await startTestServer();
    try {
      const secret = fs.readFileSync(path.join(server.dataDir, 'session-secret'), 'utf8');
      const { cv } = jwt.decode((await login(server.url)).slice('svc_session='.length)) as { cv: string };
      const nowSeconds = Math.floor(Date.now() / 1000);
      const issuedAt = (iat: number, jwtid: string) =>
        jwt.sign({ sub: ADMIN.username, cv, iat, exp: iat + 12 * 3600 }, secret, { algorithm: 'HS256', jwtid });
      const tenYears = issuedAt(nowSeconds + 10 * 365 * 24 * 3600, 'future');
      assert.equal(
        (await call(server.url, '/api/ui/me', { cookie: `svc_session=${tenYears}` })).status,
        401,
        'iat ten years ahead',
      );
      const twoMinutes = issuedAt(nowSeconds + 120, 'ahead');
      assert.equal(
        (await call(server.url, '/api/ui/me', { cookie: `svc_session=${twoMinutes}` })).status,
        401,
        'iat two minutes ahead',
      );
      const skew = issuedAt(nowSeconds + 20, 'skew');
      assert.equal(
        (await call(server.url, '/api/ui/me', { cookie: `svc_session=${skew}` })).status,
        200,
        'a clock 20 s ahead is tolerated',
      );
    } finally {
      await server.close();
    }
  });

  test('with SVC_PUBLIC_URL=https://… alone, sign-in through the public name sets a Secure cookie; direct http does not', async () => {
    const server = await startTestServer({ SVC_PUBLIC_URL: 'https://rules.example.com' });
    try {
      const viaProxy = await postWithHost(
        server.url,
        '/api/auth',
        { host: 'rules.example.com', origin: 'https://rules.example.com' },
        ADMIN,
      );
      assert.equal(viaProxy.statusCode, 200);
      assert.match(String(viaProxy.headers['set-cookie']), /;\s*Secure/i);
      const proxyKeepsHost = await postWithHost(
        server.url,
        '/api/auth',
        { origin: 'https://rules.example.com' },
        ADMIN,
      );
      assert.match(
        String(proxyKeepsHost.headers['set-cookie']),
        /;\s*Secure/i,
        'the https page origin is enough when the proxy rewrites Host',
      );
      const httpsPortInHost = await postWithHost(
        server.url,
        '/api/auth',
        { host: 'rules.example.com:443', origin: 'https://rules.example.com' },
        ADMIN,
      );
      assert.match(String(httpsPortInHost.headers['set-cookie']), /;\s*Secure/i, 'a proxy writing :443 into Host');
      const otherPortNoOrigin = await postWithHost(server.url, '/api/auth', { host: 'rules.example.com:8443' }, ADMIN);
      assert.match(String(otherPortNoOrigin.headers['set-cookie']), /;\s*Secure/i, 'whatever port the proxy writes');
      const direct = await call(server.url, '/api/auth', { body: ADMIN });
      assert.equal(direct.status, 200);
      assert.doesNotMatch(
        direct.headers.get('set-cookie') ?? '',
        /;\s*Secure/i,
        'http://127.0.0.1 keeps a cookie the browser will send back',
      );
    } finally {
      await server.close();
    }
  });

  test('SVC_HOST=:: listens on IPv6 and IPv4 alike (dual stack)', async () => {
    const server = await startTestServer({}, { host: '::' });
    try {
      const port = new URL(server.url).port;
      assert.equal((await call(`http://127.0.0.1:${port}`, '/api/health')).status, 200, 'IPv4');
      assert.equal((await call(`http://[::1]:${port}`, '/api/health')).status, 200, 'IPv6');
      assert.equal((await call(`http://[::1]:${port}`, '/api/auth', { body: ADMIN })).status, 200, 'sign-in over IPv6');
      assert.ok(
        server.logs.some((line) => /IPv6 and IPv4/.test(line)),
        server.logs.join('\n'),
      );
    } finally {
      await server.close();
    }
  });
});

describe('a short or garbled session-secret', () => {
  for (const [kind, content] of [
    ['short', 'too-short-secret'],
    ['garbled', `${'A'.repeat(40)}\u0000\u0000\u0000\uFFFD${'B'.repeat(20)}`],
  ] as const) {
    test(`a ${kind} secret is moved aside and replaced, and the log says so`, async () => {
      const dataDir = tempDir('dms-rules-data-');
      fs.writeFileSync(path.join(dataDir, 'session-secret'), content, { mode: 0o600 });
      const server = await startTestServer({}, { dataDir });
      try {
        const fresh = fs.readFileSync(path.join(dataDir, 'session-secret'), 'utf8');
        assert.match(fresh, /^[A-Za-z0-9_-]{64}$/);
        const aside = fs.readdirSync(dataDir).filter((name) => name.startsWith('session-secret.corrupt-'));
        assert.equal(aside.length, 1, fs.readdirSync(dataDir).join(', '));
        assert.equal(
          fs.readFileSync(path.join(dataDir, aside[0]), 'utf8'),
          content,
          'the old bytes are kept for a person to look at',
        );
        const line = server.logs.find((l) => l.includes('session-secret'));
        assert.match(
          String(line),
          new RegExp(
            `${kind === 'short' ? 'too short' : 'not printable'}.*moved it to .*session-secret\\.corrupt-.*signed-in sessions have ended`,
          ),
        );
        assert.equal((await call(server.url, '/api/auth', { body: ADMIN })).status, 200);
      } finally {
        await server.close();
      }
    });
  }

  test('a good secret is kept without a word', async () => {
    const dataDir = tempDir('dms-rules-data-');
    const good = 'x'.repeat(10) + 'Y_-z'.repeat(10);
    fs.writeFileSync(path.join(dataDir, 'session-secret'), `${good}\n`, { mode: 0o600 });
    const server = await startTestServer({}, { dataDir });
    try {
      assert.equal(fs.readFileSync(path.join(dataDir, 'session-secret'), 'utf8'), `${good}\n`);
      assert.ok(!server.logs.some((l) => l.includes('session-secret')));
    } finally {
      await server.close();
    }
  });
});
