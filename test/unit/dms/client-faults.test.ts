import '../../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, afterEach, before, describe, test } from 'node:test';
import { DmsError } from '../../../server/dms/dms-errors.js';
import { createPaperlessClient, type PaperlessClientOptions } from '../../../server/dms/paperless-client.js';
import { startSimulator, type Simulator } from '../../../tools/paperless-sim/simulator.js';
import type { DmsClient } from '../../../server/dms/types.js';

describe('the client survives injected dms faults', () => {
  let sim: Simulator;
  const clients: DmsClient[] = [];
  const client = (options: Partial<PaperlessClientOptions> = {}) => {
    const c = createPaperlessClient({ url: sim.url, token: sim.token, retryBaseMs: 5, ...options });
    clients.push(c);
    return c;
  };
  const hits = (key = 'GET /api/documents/{id}/') => sim.counts()[key] ?? 0;

  before(async () => {
    sim = await startSimulator();
  });
  afterEach(async () => {
    sim.faults.clear();
    sim.resetCounts();
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  after(() => sim.close());

  // A held request never answers until released, so the timeout trips on any machine, however busy.
  test('an answer beyond the timeout fails with a timeout DmsError naming the request', async () => {
    const hold = sim.faults.inject({ route: '/api/documents/{id}/', kind: 'hold' });
    await assert.rejects(client({ timeoutMs: 100, retries: 1 }).getDocument(1), (err: unknown) => {
      assert.ok(err instanceof DmsError);
      assert.equal(err.dmsStatus, null);
      assert.equal(err.request, 'GET /api/documents/1/');
      assert.match(err.message, /GET \/api\/documents\/1\/ timed out after 100 ms after 2 attempts/);
      return true;
    });
    // The client gave up on its own; a busy machine may abort the second attempt before the dms saw it.
    assert.ok(hits() >= 1 && hits() <= 2, `${hits()} request(s) reached the dms`);
    sim.faults.release(hold.id);
  });

  test('one answer that does not come is retried and the second attempt succeeds', async () => {
    const hold = sim.faults.inject({ route: '/api/documents/{id}/', kind: 'hold', times: 1 });
    const doc = await client({ timeoutMs: 2000, retries: 2 }).getDocument(1);
    assert.equal(doc.id, 1);
    // The held first attempt never answers, so the document came from a retry; on a starved machine the second
    // attempt may outlast the timeout too and the third answers.
    assert.ok(hits() >= 2, `${hits()} request(s) reached the dms`);
    sim.faults.release(hold.id);
  });

  test('500s are retried with backoff, then the call succeeds', async () => {
    sim.faults.inject({ route: '/api/documents/{id}/', kind: 'status', status: 500, times: 2 });
    const doc = await client({ retries: 3 }).getDocument(4);
    assert.equal(doc.id, 4);
    assert.equal(hits(), 3);
  });

  test('retries are bounded: a dms that keeps failing gives a DmsError with its message and the request', async () => {
    sim.faults.inject({ route: '/api/documents/{id}/', kind: 'status', status: 502 });
    await assert.rejects(client({ retries: 2 }).getDocument(4), (err: unknown) => {
      assert.ok(err instanceof DmsError);
      assert.equal(err.dmsStatus, 502);
      assert.match(err.message, /dms answered 502 to GET \/api\/documents\/4\/: Bad Gateway \(after 3 attempts\)/);
      return true;
    });
    assert.equal(hits(), 3);
  });

  test('429 waits for Retry-After before retrying', async () => {
    sim.faults.inject({ route: 'GET /api/documents/{id}/', kind: 'rate_limit', retryAfter: 1, times: 1 });
    const started = performance.now();
    const doc = await client({ retries: 1, retryBaseMs: 1 }).getDocument(5);
    assert.equal(doc.id, 5);
    assert.equal(hits(), 2);
    // A lower bound only: the client must not come back before the dms allowed it.
    assert.ok(performance.now() - started >= 950, 'retried before Retry-After elapsed');
  });

  test('a Retry-After longer than the client will wait fails at once and says so', async () => {
    sim.faults.inject({ route: '/api/documents/{id}/', kind: 'rate_limit', retryAfter: 120 });
    await assert.rejects(
      client({ retries: 3, maxRetryAfterMs: 5000 }).getDocument(5),
      /429 .*throttled.*retry after 120 s, longer than we wait/,
    );
    assert.equal(hits(), 1);
  });

  test('a dropped connection is retried for reads and writes that are safe to repeat', async () => {
    sim.faults.inject({ route: '/api/documents/{id}/', kind: 'drop', times: 1 });
    assert.equal((await client({ retries: 2 }).getDocument(6)).id, 6);
    assert.equal(hits(), 2);
    sim.faults.inject({ route: 'PATCH /api/documents/{id}/', kind: 'drop', times: 1 });
    const updated = await client({ retries: 2 }).updateDocument(6, { title: 'Kassenbon REWE' });
    assert.equal(updated.title, 'Kassenbon REWE');
    assert.equal(hits('PATCH /api/documents/{id}/'), 2);
  });

  test('a dropped connection on a note (not safe to repeat) is not retried', async () => {
    sim.faults.inject({ route: '/api/documents/{id}/notes/', kind: 'drop' });
    await assert.rejects(
      client({ retries: 3 }).addNote(6, 'x'),
      (err: unknown) => err instanceof DmsError && /POST \/api\/documents\/6\/notes\/ failed/.test(err.message),
    );
    assert.equal(hits('POST /api/documents/{id}/notes/'), 1);
  });

  test('a refused connection is a DmsError, and ping reports it without throwing', async () => {
    const closed = await startSimulator();
    const url = closed.url;
    await closed.close();
    const dead = createPaperlessClient({ url, token: 'x', retries: 1, retryBaseMs: 1 });
    clients.push(dead);
    await assert.rejects(dead.getDocument(1), /GET \/api\/documents\/1\/ failed \(ECONNREFUSED\) after 2 attempts/);
    const ping = await dead.ping();
    assert.equal(ping.ok, false);
    assert.match(ping.error ?? '', /ECONNREFUSED/);
  });

  test('no more than maxInFlight requests reach the dms at once', async () => {
    sim.faults.inject({ route: '/api/documents/{id}/', kind: 'latency', ms: 50 });
    sim.resetCounts();
    const c = client({ maxInFlight: 2 });
    const docs = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map((id) => c.getDocument(id)));
    assert.deepEqual(
      docs.map((d) => d.id),
      [1, 2, 3, 4, 5, 6, 7, 8],
    );
    assert.equal(sim.peakInFlight(), 2);
  });

  test('connections are kept alive and reused', async () => {
    const c = client({ maxInFlight: 2 });
    sim.resetCounts();
    for (let i = 0; i < 20; i++) await c.getDocument(1);
    assert.equal(hits(), 20);
    // Undici may open the second pooled connection early; it never opens one per request.
    assert.ok(sim.connections() <= 2, `${sim.connections()} connections for 20 requests`);
  });

  test('faults can be injected by another process through the control endpoint', async () => {
    const res = await fetch(`${sim.url}/__sim/faults`, {
      method: 'POST',
      headers: { authorization: `Token ${sim.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ route: '/^GET \\/api\\/documents\\/\\d+\\/$/', kind: 'status', status: 500, times: 1 }),
    });
    assert.equal(res.status, 201);
    assert.equal((await client({ retries: 1 }).getDocument(1)).id, 1);
    assert.equal(hits(), 2);
    const counts = (await (
      await fetch(`${sim.url}/__sim/counts`, { headers: { authorization: `Token ${sim.token}` } })
    ).json()) as Record<string, number>;
    assert.equal(counts['GET /api/documents/{id}/'], 2);
    const denied = await fetch(`${sim.url}/__sim/faults`, { method: 'POST', body: '{}' });
    assert.equal(denied.status, 401);
  });
});
