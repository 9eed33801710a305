import '../../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, test } from 'node:test';
import { startDesktopServer } from '../../../electron/desktop-server.js';
import { webhookUrlFor } from '../../../electron/webhook-url.js';
import { createMemoryLogger } from '../../../server/log.js';
import { tempDir } from '../../helpers/temp-dir.js';

function examples(): string {
  const dir = tempDir('dms-rules-examples-');
  fs.writeFileSync(path.join(dir, '_vars.yml'), 'year_tag: y2024\n');
  fs.writeFileSync(path.join(dir, 'inbox.yml'), 'rules: []\n');
  fs.writeFileSync(path.join(dir, 'README.md'), 'not a rule\n');
  fs.mkdirSync(path.join(dir, 'finance', 'deeper'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'finance', 'invoices.yaml'), 'rules: []\n');
  fs.writeFileSync(path.join(dir, 'finance', 'deeper', 'ignored.yml'), 'rules: []\n');
  return dir;
}

const start = (userDataDir: string, env: NodeJS.ProcessEnv = {}, examplesDir = examples()) =>
  startDesktopServer({ userDataDir, examplesDir, logger: createMemoryLogger(), env });

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts on a port that was free a moment ago; when another test's server took it meanwhile (the suite runs files in
 * parallel), on another one (the failed start closes what it started).
 */
async function startOnFreePort(
  startAt: (port: number) => ReturnType<typeof start>,
): Promise<{ port: number; server: Awaited<ReturnType<typeof start>> }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return { port, server: await startAt(port) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 5) throw err;
    }
  }
}

describe('the embedded server of the desktop app', () => {
  test('listens on 127.0.0.1 on a free port with data and rules under userData', async () => {
    const userData = tempDir('dms-rules-userdata-');
    const server = await start(userData);
    try {
      assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.notEqual(new URL(server.url).port, '8484');
      assert.equal(server.dataDir, path.join(userData, 'data'));
      assert.equal(server.rulesDir, path.join(userData, 'rules.d'));
      assert.equal(server.webhookUrl, `${server.url}/api/webhook/dms`);
      const health = await fetch(`${server.url}/api/health`);
      assert.equal(health.status, 200);
      assert.ok(fs.existsSync(path.join(userData, 'data', 'session-secret')));
    } finally {
      await server.close();
    }
  });

  test('copies the example rules (one folder level, rule files only) on the first start only', async () => {
    const userData = tempDir('dms-rules-userdata-');
    const first = await start(userData);
    await first.close();
    const rules = path.join(userData, 'rules.d');
    assert.deepEqual(fs.readdirSync(rules).sort(), ['_vars.yml', 'finance', 'inbox.yml']);
    assert.deepEqual(fs.readdirSync(path.join(rules, 'finance')), ['invoices.yaml']);
    assert.equal(fs.readFileSync(path.join(rules, '_vars.yml'), 'utf8'), 'year_tag: y2024\n');

    fs.rmSync(path.join(rules, 'inbox.yml'));
    const second = await start(userData);
    await second.close();
    assert.equal(fs.existsSync(path.join(rules, 'inbox.yml')), false, 'a rule the user deleted stays deleted');
  });

  test('SVC_PORT and SVC_HOST from the environment are honoured', async () => {
    const { port, server } = await startOnFreePort((port) =>
      start(tempDir('dms-rules-userdata-'), { SVC_PORT: String(port), SVC_HOST: '127.0.0.1' }),
    );
    try {
      assert.equal(server.url, `http://127.0.0.1:${port}`);
    } finally {
      await server.close();
    }
  });

  test('a port set in the data dir config.yml is honoured too', async () => {
    const userData = tempDir('dms-rules-userdata-');
    fs.mkdirSync(path.join(userData, 'data'));
    const { port, server } = await startOnFreePort((port) => {
      fs.writeFileSync(path.join(userData, 'data', 'config.yml'), `port: ${port}\n`);
      return start(userData);
    });
    try {
      assert.equal(new URL(server.url).port, String(port));
    } finally {
      await server.close();
    }
  });

  test('the sign-in URL is on the service origin and signs in exactly once', async () => {
    const server = await start(tempDir('dms-rules-userdata-'));
    try {
      const url = server.signInUrl();
      assert.equal(new URL(url).origin, server.url);
      assert.equal(new URL(url).pathname, '/api/auth/desktop');
      const first = await fetch(url, { redirect: 'manual' });
      assert.equal(first.status, 303);
      assert.match(first.headers.get('set-cookie') ?? '', /^svc_session=/);
      assert.equal((await fetch(url, { redirect: 'manual' })).status, 401);
      assert.notEqual(server.signInUrl(), url, 'each window gets a fresh token');
    } finally {
      await server.close();
    }
  });

  test('close stops listening', async () => {
    const server = await start(tempDir('dms-rules-userdata-'));
    await server.close();
    await assert.rejects(fetch(`${server.url}/api/health`));
  });
});

describe('webhook URL shown in the tray', () => {
  const interfaces = {
    lo: [
      {
        address: '127.0.0.1',
        netmask: '255.0.0.0',
        family: 'IPv4' as const,
        mac: '00:00:00:00:00:00',
        internal: true,
        cidr: '127.0.0.1/8',
      },
    ],
    eth0: [
      {
        address: 'fe80::1',
        netmask: 'ffff:ffff:ffff:ffff::',
        family: 'IPv6' as const,
        mac: '02:00:00:00:00:01',
        internal: false,
        cidr: 'fe80::1/64',
        scopeid: 2,
      },
      {
        address: '192.168.1.20',
        netmask: '255.255.255.0',
        family: 'IPv4' as const,
        mac: '02:00:00:00:00:01',
        internal: false,
        cidr: '192.168.1.20/24',
      },
    ],
  };

  test('on loopback it is the service URL', () => {
    assert.equal(
      webhookUrlFor('http://127.0.0.1:5000', '127.0.0.1', interfaces),
      'http://127.0.0.1:5000/api/webhook/dms',
    );
  });

  test('listening on all interfaces it names the LAN address the dms can reach', () => {
    assert.equal(
      webhookUrlFor('http://127.0.0.1:8484', '0.0.0.0', interfaces),
      'http://192.168.1.20:8484/api/webhook/dms',
    );
  });

  test('with no LAN interface it falls back to the service URL', () => {
    assert.equal(
      webhookUrlFor('http://127.0.0.1:8484', '0.0.0.0', { lo: interfaces.lo }),
      'http://127.0.0.1:8484/api/webhook/dms',
    );
  });
});
