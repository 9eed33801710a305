import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { DMS_WORKERS } from '../../server/config.js';
import type { RequestTimes } from '../../tools/paperless-sim/simulator.js';
import { API_TOKEN, call, startTestServer } from '../helpers/test-server.js';
import { startJob, startRig, waitForEvent, type Rig } from './support/jobs-kit.js';

// A run-all keeps as many requests at the dms as SVC_DMS_WORKERS says it has web workers, and one waiting:
// Paperless runs one web worker unless told otherwise, and requests waiting in its queue read nothing faster
// while a person's clicks in Paperless wait behind them. The dms has four workers here and answers slowly (400 ms a
// request), so what is counted is what the service sent, not what the dms let through.

const RULES = `
rules:
  - id: invoices
    description: Tags the invoices
    when:
      content: { matches: '(?i)rechnung|invoice' }
    actions:
      - add_tags: [read-plan-invoice]
`;

const GENERATED = 1200;
/** The generated documents and the simulator's twelve of its own. */
const DOCUMENTS = 1212;

/** The job's document reads (not the health ping's page matching nothing). */
const isJobRead = (t: RequestTimes) =>
  t.request.startsWith('GET /api/documents/?') &&
  !new URL(t.request.split(' ')[1], 'http://sim').searchParams.has('id__in');

const pageSizeOf = (t: RequestTimes) =>
  Number(new URL(t.request.split(' ')[1], 'http://sim').searchParams.get('page_size'));

/** The most of `times` at the dms at one moment (each from its arrival to its answer). */
function mostAtOnce(times: RequestTimes[]): number {
  return Math.max(0, ...times.map((t) => times.filter((o) => o.arrived <= t.arrived && o.answered > t.arrived).length));
}

async function dryJob(rig: Rig): Promise<RequestTimes[]> {
  rig.sim.resetCounts();
  const res = await startJob(rig.server.url, 'rule_id=invoices');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const event = await waitForEvent(rig.server.url, res.body.event_id as number);
  assert.equal(event.status, 'done', JSON.stringify(event));
  assert.equal(event.processed, rig.sim.store.documents.size);
  return rig.sim.requestTimes().filter(isJobRead);
}

const CASES = [
  // 1,212 documents at one worker: pages of 500 (two per worker would be 606, more than the page size).
  { workers: 1, pageSize: 500 },
  // At four workers a small read is split so each worker gets two pages: 1,212 / 8, rounded up.
  { workers: 4, pageSize: 152 },
];

for (const { workers, pageSize } of CASES)
  describe(`SVC_DMS_WORKERS=${workers}`, () => {
    let rig: Rig;
    before(async () => {
      rig = await startRig(
        RULES,
        { SVC_DMS_WORKERS: String(workers) },
        { generate: { count: GENERATED, seed: 7 }, slow: { latencyMs: 400, perDocumentMs: 1, workers: 4 } },
      );
    });
    after(async () => rig?.close());

    it(`health says ${workers}, and a run-all keeps ${workers + 1} requests at the dms at most`, async () => {
      assert.equal(rig.sim.store.documents.size, DOCUMENTS);
      const health = await call<{ dms: { serves_at_once: number } }>(rig.server.url, '/api/health', {
        token: API_TOKEN,
      });
      assert.equal(health.body.dms.serves_at_once, workers);
      const reads = await dryJob(rig);
      // Never more; a stall of this process (the dms and the service share it) may show one of them late.
      const most = mostAtOnce(reads);
      assert.ok(most <= workers + 1 && most >= workers, `${most} at once: ${JSON.stringify(reads)}`);
      const pages = reads.filter((t) => pageSizeOf(t) > 1);
      assert.deepEqual([...new Set(pages.map(pageSizeOf))], [pageSize]);
      assert.equal(pages.length, Math.ceil(DOCUMENTS / pageSize));
    });
  });

describe('SVC_DMS_PAGE_SIZE', () => {
  it('sets the rows a large read asks for per request', async () => {
    const rig = await startRig(
      RULES,
      { SVC_DMS_PAGE_SIZE: '300', SVC_DMS_WORKERS: '1' },
      { generate: { count: GENERATED, seed: 7 } },
    );
    try {
      const pages = (await dryJob(rig)).filter((t) => pageSizeOf(t) > 1);
      assert.deepEqual([...new Set(pages.map(pageSizeOf))], [300]);
      assert.equal(pages.length, Math.ceil(DOCUMENTS / 300));
    } finally {
      await rig.close();
    }
  });
});

describe('a dms that does not answer', () => {
  it('still has the configured number of workers in health', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as net.AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const server = await startTestServer({ SVC_DMS_URL: `http://127.0.0.1:${port}`, SVC_DMS_TOKEN: 'token' });
    try {
      const down = await call<{ dms: { reachable: boolean; serves_at_once: number } }>(server.url, '/api/health', {
        token: API_TOKEN,
      });
      assert.equal(down.body.dms.reachable, false);
      assert.equal(down.body.dms.serves_at_once, DMS_WORKERS.default);
    } finally {
      await server.close();
    }
  });
});
