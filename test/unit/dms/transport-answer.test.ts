import '../../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTransport, OFF_THREAD_BYTES, type Transport } from '../../../server/dms/http-transport.js';

// `onAnswer` tells the read's pump that the dms's worker is free: when the answer's head arrives, not once its
// body was read and parsed.

let server: http.Server;
let transport: Transport;
/** Ends the body of the request held by the server (set once its head was sent). */
let release: (() => void) | null = null;
const stalled: http.ServerResponse[] = [];

const transportTo = (port: number, timeoutMs: number) =>
  createTransport({
    url: `http://127.0.0.1:${port}`,
    token: 'token',
    timeoutMs,
    maxInFlight: 2,
    retries: 0,
    retryBaseMs: 1,
    maxRetryAfterMs: 0,
  });

describe("the transport's announced answers", () => {
  before(async () => {
    server = http.createServer((req, res) => {
      if (req.url?.startsWith('/api/stalled/')) {
        // Half a body, then nothing: the rest never comes.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"count":1,"results":[');
        stalled.push(res);
        return;
      }
      if (req.url?.startsWith('/api/large/')) {
        // Past OFF_THREAD_BYTES: parsed in a worker thread. Paperless 2.18 names itself on every answer.
        const content = 'Grüße '.repeat(Math.ceil((OFF_THREAD_BYTES + 1024) / 7));
        res.writeHead(200, { 'content-type': 'application/json', 'x-version': '2.18.4', 'x-api-version': '9' });
        res.end(JSON.stringify({ count: 1, next: null, previous: null, results: [{ id: 1, content }] }));
        return;
      }
      if (req.url?.startsWith('/api/missing/')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not found."}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      release = () => res.end('{"count":0,"next":null,"previous":null,"results":[]}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    transport = transportTo(port, 60_000);
  });

  after(async () => {
    for (const res of stalled) res.destroy();
    await transport.close();
    await new Promise((resolve) => server.close(resolve));
  });

  const until = async (done: () => boolean) => {
    while (!done()) await new Promise((resolve) => setImmediate(resolve));
  };

  test('announces a 2xx answer when its head arrives, while its body is still to come', async () => {
    let announced = 0;
    let settled = false;
    const sent = transport
      .send({ method: 'GET', path: '/api/documents/', idempotent: true, onAnswer: () => announced++ })
      .finally(() => (settled = true));
    await until(() => announced > 0);
    assert.equal(settled, false, 'the body has not been sent yet');
    (release as () => void)();
    const res = await sent;
    assert.deepEqual(res.json, { count: 0, next: null, previous: null, results: [] });
    assert.equal(announced, 1);
  });

  test('does not announce an answer that fails the request', async () => {
    let announced = 0;
    await assert.rejects(
      transport.send({ method: 'GET', path: '/api/missing/', idempotent: true, onAnswer: () => announced++ }),
      /404/,
    );
    assert.equal(announced, 0);
  });

  test('a body that stops arriving fails the request as a timeout, after its answer was announced', async () => {
    const impatient = transportTo((server.address() as AddressInfo).port, 200);
    let announced = 0;
    try {
      await assert.rejects(
        impatient.send({ method: 'GET', path: '/api/stalled/', idempotent: true, onAnswer: () => announced++ }),
        /timed out after 200 ms/,
      );
      assert.equal(announced, 1, 'the head had arrived: the slot was freed, the read still fails');
    } finally {
      await impatient.close();
    }
  });

  test('an answer too large for the main thread is parsed off it, as the same JSON, and still names the release', async () => {
    const { port } = server.address() as AddressInfo;
    const fresh = transportTo(port, 60_000);
    try {
      const res = await fresh.send({ method: 'GET', path: '/api/large/', idempotent: true });
      const results = (res.json as { results: Array<{ id: number; content: string }> }).results;
      assert.equal(results[0].id, 1);
      assert.ok(Buffer.byteLength(results[0].content) > OFF_THREAD_BYTES);
      assert.ok(results[0].content.startsWith('Grüße Grüße'));
      assert.deepEqual(fresh.versions(), { apiVersion: 9, version: '2.18.4', maxApiVersion: 9 });
    } finally {
      await fresh.close();
    }
  });

  test('closing cuts a read whose body never comes, without retrying it', async () => {
    const { port } = server.address() as AddressInfo;
    const closing = createTransport({
      url: `http://127.0.0.1:${port}`,
      token: 'token',
      timeoutMs: 60_000,
      maxInFlight: 2,
      retries: 3,
      retryBaseMs: 1,
      maxRetryAfterMs: 0,
    });
    let announced = 0;
    const read = closing.send({ method: 'GET', path: '/api/stalled/', idempotent: true, onAnswer: () => announced++ });
    read.catch(() => undefined);
    await until(() => announced > 0);
    await closing.close();
    await assert.rejects(read, /cut off: the connection to this dms was closed/);
    assert.equal(closing.attempts(), 1, 'not sent again after the cut');
  });
});
