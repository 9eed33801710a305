import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type RequestTimes, type Simulator } from '../../tools/paperless-sim/simulator.js';
import { servesAtOnce } from '../helpers/dms-health.js';
import { API_TOKEN, call, startTestServer, TEST_TIMINGS, type TestServer } from '../helpers/test-server.js';
import { startJob, startRig, waitForEvent, type Rig } from './support/jobs-kit.js';

// A run-all keeps no more requests at the dms than it was seen to serve at once, and one waiting:
// Paperless runs one web worker unless told otherwise, and requests waiting in its queue read nothing faster
// while a person's clicks in Paperless wait behind them. The answers are paced slowly enough (200 ms each) that the
// waves of the start-up probe stand far apart from anything this process's event loop does.

const RULES = `
rules:
  - id: invoices
    description: Tags the invoices
    when:
      content: { matches: '(?i)rechnung|invoice' }
    actions:
      - add_tags: [concurrency-invoice]
`;

const slowDms = (workers: number) => ({ latencyMs: 200, perDocumentMs: 1, workers });

/** The job's document reads (not the health ping's page matching nothing, nor the start-up probes like it). */
const isJobRead = (t: RequestTimes) =>
  t.request.startsWith('GET /api/documents/?') &&
  !new URL(t.request.split(' ')[1], 'http://sim').searchParams.has('id__in');

/** The most of `times` at the dms at one moment (each from its arrival to its answer). */
function mostAtOnce(times: RequestTimes[]): number {
  return Math.max(0, ...times.map((t) => times.filter((o) => o.arrived <= t.arrived && o.answered > t.arrived).length));
}

/** Asks for fresh pings (health's `deep`) until one finds the dms answering, or not. */
async function reachable(server: TestServer, expected: boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const health = await call<{ dms: { reachable: boolean } }>(server.url, '/api/health?deep=1', { token: API_TOKEN });
    if (health.body.dms.reachable === expected) return;
    assert.ok(Date.now() < deadline, `the dms never became ${expected ? 'reachable' : 'unreachable'}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function dryJob(rig: Pick<Rig, 'sim' | 'server'>): Promise<RequestTimes[]> {
  rig.sim.resetCounts();
  const res = await startJob(rig.server.url, 'rule_id=invoices');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const event = await waitForEvent(rig.server.url, res.body.event_id as number);
  assert.equal(event.status, 'done', JSON.stringify(event));
  assert.equal(event.processed, rig.sim.store.documents.size);
  return rig.sim.requestTimes().filter(isJobRead);
}

// A stall of this process can show two waves of one worker's answers together (docs/decisions.md): the service
// then keeps one more request at the dms than it needs, never fewer than it serves. So one worker is seen as fewer
// than four, not necessarily as one; four workers answer together and are seen as four.
const CASES = [
  { dms: 'one web worker (Paperless by default)', workers: 1, seen: (n: number) => n < 4 },
  { dms: 'four web workers', workers: 4, seen: (n: number) => n === 4 },
];

for (const { dms, workers, seen } of CASES)
  describe(`a dms with ${dms}`, () => {
    let rig: Rig;
    before(async () => {
      rig = await startRig(RULES, {}, { generate: { count: 1200, seed: 7 }, slow: slowDms(workers) });
    });
    after(async () => rig?.close());

    it('is seen to serve so many at once, and a job keeps that many requests at the dms and one waiting', async () => {
      const served = await servesAtOnce(rig.server.url);
      assert.ok(seen(served), `${workers} worker(s) seen as ${served}`);
      const reads = await dryJob(rig);
      // Never more than it serves and one waiting; a loaded host may leave the waiting slot unused for a moment.
      const most = mostAtOnce(reads);
      assert.ok(most >= served && most <= served + 1, `${most} at once for ${served} served: ${JSON.stringify(reads)}`);
    });
  });

describe('a dms that was down when the service started', () => {
  it('is probed once a ping finds it answering', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as net.AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const server = await startTestServer({ SVC_DMS_URL: `http://127.0.0.1:${port}`, SVC_DMS_TOKEN: 'token' });
    try {
      const down = await call<{ dms: { reachable: boolean; serves_at_once: number | null } }>(
        server.url,
        '/api/health',
        { token: API_TOKEN },
      );
      assert.equal(down.body.dms.reachable, false);
      assert.equal(down.body.dms.serves_at_once, null);
      const sim = await startSimulator({ port, token: 'token', slow: slowDms(1) });
      try {
        // The deep check waits for a fresh ping, which finds the dms answering and starts the probes.
        await call(server.url, '/api/health?deep=1', { token: API_TOKEN });
        assert.ok((await servesAtOnce(server.url)) < 4);
      } finally {
        await sim.close();
      }
    } finally {
      await server.close();
    }
  });
});

/**
 * A rig on a four-worker dms, whose `restart` stops that dms, waits for `whileDown`, and starts one with a single web
 * worker on the same port, as Paperless restarted with fewer workers would be.
 */
async function withRestartedDms(
  options: Parameters<typeof startRig>[3],
  test: (rig: Rig, restart: (whileDown?: () => Promise<void>) => Promise<Simulator>) => Promise<void>,
): Promise<void> {
  const rig = await startRig(RULES, {}, { slow: slowDms(4) }, options);
  const port = Number(new URL(rig.sim.url).port);
  const started: Simulator[] = [];
  let firstClosed = false;
  const restart = async (whileDown?: () => Promise<void>) => {
    await rig.sim.close();
    firstClosed = true;
    await whileDown?.();
    const sim = await startSimulator({
      port,
      token: rig.sim.token,
      generate: { count: 1200, seed: 7 },
      slow: slowDms(1),
    });
    started.push(sim);
    return sim;
  };
  try {
    assert.equal(await servesAtOnce(rig.server.url), 4);
    await test(rig, restart);
  } finally {
    await rig.server.close();
    // The first simulator too when the test failed before restarting it: an open one keeps the process running.
    if (!firstClosed) await rig.sim.close();
    await Promise.all(started.map((sim) => sim.close()));
  }
}

/** Health comes to say fewer than four, and a job keeps that many requests at the dms and one waiting. */
async function jobsKeepToFewer(server: TestServer, sim: Simulator): Promise<void> {
  const served = await servesAtOnce(server.url, (n) => n < 4);
  const reads = await dryJob({ sim, server });
  assert.equal(mostAtOnce(reads), served + 1, JSON.stringify(reads));
}

describe('a dms restarted with fewer web workers while the service runs', () => {
  it('is probed afresh once a ping finds it answering again, and jobs keep to its new figure', async () => {
    // Health pings stand 100 ms here instead of 5 s, so the test need not wait twice for one to go stale.
    await withRestartedDms({ timings: { ...TEST_TIMINGS, dmsStatusTtlMs: 100 } }, async (rig, restart) => {
      const restarted = await restart(() => reachable(rig.server, false));
      await reachable(rig.server, true);
      await jobsKeepToFewer(rig.server, restarted);
    });
  });

  it('is probed afresh when a job finds it restarted, with no health ping in between', async () => {
    await withRestartedDms(undefined, async (rig, restart) => {
      const restarted = await restart();
      // The job's first read finds its connection cut, as a restart cuts the requests it was serving; nothing asked
      // for health since the old dms went, so no ping saw it missing.
      const cut = restarted.faults.inject({
        route: '/api/documents/',
        params: { ordering: /id/ },
        kind: 'drop',
        times: 1,
      });
      await dryJob({ sim: restarted, server: rig.server });
      assert.equal(cut.hits, 1);
      await jobsKeepToFewer(rig.server, restarted);
    });
  });
});
