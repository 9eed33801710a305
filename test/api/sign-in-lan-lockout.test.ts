import assert from 'node:assert/strict';
import http from 'node:http';
import { after, describe, test } from 'node:test';
import { hashPassword } from '../../server/auth/passwords.js';
import { ADMIN, startTestServer } from '../helpers/test-server.js';

// LAN clients are simulated through a trusted proxy on loopback (SVC_TRUST_PROXY), which is how the real
// app learns a client address it did not see itself; the throttle's clock is the test's, so four minutes
// of an attack play out without waiting.
// Two thousand sign-ins go through node's http client on kept-alive connections: fetch's own work per request
// cost more CPU than the server's. The server sees the same requests (JSON body, X-Forwarded-For).
// One agent per server, dropped with it: a later server on the same port never gets a socket of the closed one.
let agent = new http.Agent({ keepAlive: true });
const closeServer = async (server: { close(): Promise<void> }) => {
  agent.destroy();
  agent = new http.Agent({ keepAlive: true });
  await server.close();
};

interface SignInAnswer {
  status: number;
  headers: { get(name: string): string | null };
}

function signIn(base: string, address: string, password: string): Promise<SignInAnswer> {
  const body = JSON.stringify({ username: ADMIN.username, password });
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}/api/auth`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-forwarded-for': address,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: { get: (name) => (res.headers[name] as string | undefined) ?? null },
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('a LAN attacker cannot keep the LAN admin out', () => {
  after(() => agent.destroy());

  test('four addresses guessing for 240 s: the admin at a fifth address signs in at every try, the guessers are slowed', async () => {
    let now = 1_700_000_000_000;
    const server = await startTestServer({ SVC_TRUST_PROXY: 'loopback' }, {}, { now: () => now });
    try {
      const attackers = ['192.168.1.21', '192.168.1.22', '192.168.1.23', '192.168.1.24'];
      const counted: number[] = [];
      const retryAfter: number[] = [];
      const admin: number[] = [];
      for (let tick = 0; tick < 480; tick++) {
        // Every 500 ms of the attack's clock each attacker posts a wrong password, all at once (the issue's
        // 50 ms only adds 429s, which are answered before any check).
        const answers = await Promise.all(
          attackers.map((address, i) => signIn(server.url, address, `guess-${tick}-${i}`)),
        );
        for (const res of answers) {
          if (res.status === 403) counted.push(tick);
          else {
            assert.equal(res.status, 429);
            retryAfter.push(Number(res.headers.get('retry-after')));
          }
        }
        if (tick % 10 === 5) admin.push((await signIn(server.url, '192.168.1.30', ADMIN.password)).status);
        now += 500;
      }
      assert.equal(admin.length, 48);
      assert.deepEqual(
        admin.filter((status) => status !== 200),
        [],
        'the admin, who has not failed, signs in every time',
      );
      assert.ok(
        counted.length <= 16,
        `the four guessers together got ${counted.length} wrong passwords checked in 240 s`,
      );
      assert.ok(
        Math.max(...retryAfter) >= 30,
        `the guessers are told to wait longer and longer (up to ${Math.max(...retryAfter)} s)`,
      );
    } finally {
      await closeServer(server);
    }
  });

  test('a guessing source waits longer after each failure; a source that failed once waits with the others', async () => {
    let now = 1_700_000_000_000;
    const server = await startTestServer({ SVC_TRUST_PROXY: 'loopback' }, {}, { now: () => now });
    try {
      const waits: number[] = [];
      for (let i = 0; i < 9; i++) {
        const res = await signIn(server.url, '192.168.1.40', `wrong-${i}`);
        if (res.status === 429) {
          const seconds = Number(res.headers.get('retry-after'));
          waits.push(seconds);
          now += seconds * 1000;
          assert.equal(
            (await signIn(server.url, '192.168.1.40', `wrong-${i}-again`)).status,
            403,
            'a delay, not a lock',
          );
        } else assert.equal(res.status, 403);
      }
      assert.deepEqual(waits, [1, 2, 4, 8], 'the guesser waits 1, 2, 4, 8 s');
      // The account has now seen enough failures to be slowed for every source that has failed itself ...
      assert.equal((await signIn(server.url, '192.168.1.41', 'one typo')).status, 403);
      assert.equal((await signIn(server.url, '192.168.1.41', ADMIN.password)).status, 429);
      // ... but not for one that has not.
      assert.equal((await signIn(server.url, '192.168.1.42', ADMIN.password)).status, 200);
    } finally {
      await closeServer(server);
    }
  });

  test('parallel wrong passwords from one address cannot all be checked before the first one is counted', async () => {
    const now = 1_700_000_000_000;
    const server = await startTestServer(
      { SVC_TRUST_PROXY: 'loopback', SVC_ADMIN_PASSWORD: '', SVC_ADMIN_PASSWORD_HASH: hashPassword(ADMIN.password) },
      {},
      { now: () => now },
    );
    try {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => signIn(server.url, '192.168.1.50', `parallel-${i}`)),
      );
      const statuses = answers.map((res) => res.status);
      assert.equal(
        statuses.filter((s) => s === 403).length,
        5,
        `only the free failures were checked: ${statuses.join(',')}`,
      );
      assert.equal(statuses.filter((s) => s === 429).length, 15);
      assert.equal(
        (await signIn(server.url, '192.168.1.51', ADMIN.password)).status,
        200,
        'a hashed password signs in',
      );
    } finally {
      await closeServer(server);
    }
  });
});
