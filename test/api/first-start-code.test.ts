import '../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * A reverse proxy at nginx's defaults on this machine: Host rewritten to the upstream address, no forwarding
 * headers added. To the service, a LAN browser's request through it is a plain loopback request.
 */
async function startPlainProxy(upstream: string): Promise<{ url: string; close(): Promise<void> }> {
  const target = new URL(upstream);
  const proxy = http.createServer((req, res) => {
    const forward = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => proxy.close(() => resolve())),
  };
}

const adminInConfig = (dataDir: string) => {
  const file = path.join(dataDir, 'config.yml');
  return fs.existsSync(file) && /admin_user/.test(fs.readFileSync(file, 'utf8'));
};

describe('first start: the admin account needs the setup code from the machine', () => {
  let server: TestServer;
  let proxy: Awaited<ReturnType<typeof startPlainProxy>>;
  before(async () => {
    server = await startTestServer({ SVC_ADMIN_USER: '', SVC_ADMIN_PASSWORD: '' });
    proxy = await startPlainProxy(server.url);
  });
  after(async () => {
    await proxy?.close();
    await server?.close();
  });

  it('keeps the code in a data dir file only the service user can read, and prints it as a link in the start log', () => {
    const file = path.join(server.dataDir, 'setup-code');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const code = fs.readFileSync(file, 'utf8').trim();
    assert.match(code, /^[A-Za-z0-9_-]{20}$/);
    const line = server.logs.find((l) => l.includes('first start:'));
    assert.ok(line, server.logs.join('\n'));
    assert.ok(line.includes(`${server.url}/login#setup-code=${code}`), line);
  });

  it('refuses a LAN client through a plain loopback proxy: 403 naming where the code is, no admin stored', async () => {
    const res = await call(proxy.url, '/api/setup', { body: { username: 'attacker', password: 'attacker password' } });
    assert.equal(res.status, 403);
    assert.match(String(res.body.error), /setup code.*setup-code.*data directory.*start log/);
    assert.equal(adminInConfig(server.dataDir), false);
  });

  it('refuses a wrong code and an odd one (an object, a number) from loopback itself, 403 not 500', async () => {
    for (const code of ['wrong-code-0123456789', { toString: 5 }, 12345, '']) {
      const res = await call(server.url, '/api/setup', {
        body: { code, username: 'attacker', password: 'attacker password' },
      });
      assert.equal(res.status, 403, JSON.stringify(code));
    }
    assert.equal(adminInConfig(server.dataDir), false);
  });

  it('creates the admin with the code from the log, once; the code and its file are gone after', async () => {
    const line = server.logs.find((l) => l.includes('first start:')) ?? '';
    const code = /#setup-code=([A-Za-z0-9_-]+)/.exec(line)?.[1];
    assert.ok(code);
    const created = await call(server.url, '/api/setup', {
      body: { code, username: 'owner', password: 'a good long password' },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal(fs.existsSync(path.join(server.dataDir, 'setup-code')), false);
    const again = await call(proxy.url, '/api/setup', {
      body: { code, username: 'attacker', password: 'attacker password' },
    });
    assert.equal(again.status, 409);
    assert.match(fs.readFileSync(path.join(server.dataDir, 'config.yml'), 'utf8'), /admin_user: owner/);
  });
});

describe('first start with SVC_ADMIN_USER/SVC_ADMIN_PASSWORD', () => {
  it('has no setup code: no file, no link in the log, and setup answers 409', async () => {
    const server = await startTestServer();
    try {
      assert.equal(fs.existsSync(path.join(server.dataDir, 'setup-code')), false);
      assert.equal(
        server.logs.some((l) => l.includes('setup-code')),
        false,
      );
      assert.equal(
        (await call(server.url, '/api/setup', { body: { code: 'x', username: 'a', password: 'b' } })).status,
        409,
      );
    } finally {
      await server.close();
    }
  });
});
