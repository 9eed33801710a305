import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSimulator } from '../../tools/paperless-sim/simulator.js';
import { startHungDms, type HungDms } from '../helpers/hung-dms.js';
import { call, login, startTestServer, type TestServer } from '../helpers/test-server.js';

interface HealthDms {
  reachable: boolean;
  not_answering_since: string | null;
  checked_at?: string | null;
  error?: string | null;
}

describe('health does not wait on a dms that never answers', () => {
  let dms: HungDms;
  let server: TestServer;
  before(async () => {
    dms = await startHungDms();
    server = await startTestServer({ SVC_DMS_URL: dms.url, SVC_DMS_TOKEN: 'a'.repeat(40) });
  });
  after(async () => {
    // The fake dms first: the service's requests to it end at once instead of at the client's timeout.
    await dms?.close();
    await server?.close();
  });

  test('health answers while the dms request is held open, and says since when the dms has not answered', async () => {
    await call(server.url, '/api/health');
    await dms.firstRequest;
    for (let i = 0; i < 5; i++) {
      const health = await call<{ status: string; dms: HealthDms }>(server.url, '/api/health');
      assert.equal(health.status, 200);
      assert.equal(health.body.status, 'healthy');
      assert.equal(health.body.dms.reachable, false);
      assert.ok(
        health.body.dms.not_answering_since && !Number.isNaN(Date.parse(health.body.dms.not_answering_since)),
        JSON.stringify(health.body.dms),
      );
      assert.ok(dms.open() > 0, 'the answer came while the fake dms still held the request open');
    }
  });

  test('the signed-in view says the dms has not answered yet, and when it was asked', async () => {
    const health = await call<{ dms: HealthDms }>(server.url, '/api/health', { cookie: await login(server.url) });
    assert.equal(health.status, 200);
    assert.equal(health.body.dms.checked_at, null);
    assert.match(String(health.body.dms.error), /the dms has not answered yet \(asked at \d{4}-\d\d-\d\dT/);
    assert.ok(dms.open() > 0);
  });
});

describe('the deep check waits for a fresh answer', () => {
  test('?deep=1 reports a dms that answers, with the time it was checked', async () => {
    const sim = await startSimulator();
    const server = await startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token });
    try {
      const before = Date.now();
      const health = await call<{ dms: HealthDms }>(server.url, '/api/health?deep=1', {
        cookie: await login(server.url),
      });
      assert.equal(health.body.dms.reachable, true);
      assert.equal(health.body.dms.not_answering_since, null);
      assert.ok(Date.parse(String(health.body.dms.checked_at)) >= before - 5000, 'checked within the cache time');
    } finally {
      await server.close();
      await sim.close();
    }
  });
});
