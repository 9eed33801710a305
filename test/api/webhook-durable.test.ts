import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { startSimulator } from '../../tools/paperless-sim/simulator.js';
import type { EventRecord } from '../../server/history/event-types.js';
import { arrivalsSettled, arrivalsWaiting, heldAtDms } from '../helpers/arrivals.js';
import { API_TOKEN, TEST_TIMINGS, call, startTestServer, tempDir } from '../helpers/test-server.js';
import { startJob, waitForEvent } from './support/jobs-kit.js';

const post = (url: string, body: Record<string, string>) =>
  call<{ event_id: number; duplicate: boolean }>(url, '/api/webhook/dms', { token: API_TOKEN, body });

describe('webhook deliveries and jobs across stops', () => {
  it('deliveries for ids the dms does not have wait side by side: a queue full of them does not jam it', async () => {
    const sim = await startSimulator();
    // The wait for a document that is not there yet outlasts the test, however slow the machine: nothing races it.
    // Two deliveries at once, whatever the simulator serves: two held documents fill the run slots.
    const timings = { ...TEST_TIMINGS, webhook: { arrivalWaitMs: 600_000, arrivalPollMs: 25, concurrency: 2 } };
    const waits = 19;
    const server = await startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token }, { timings });
    try {
      // Documents 1 and 2 are held at the dms, so both run slots are busy while the deliveries below arrive.
      const hold = sim.faults.inject({ route: /^GET \/api\/documents\/[12]\/$/, kind: 'hold' });
      const busy = [
        await post(server.url, { event: 'document_updated', doc_id: '1' }),
        await post(server.url, { event: 'document_updated', doc_id: '2' }),
      ];
      await heldAtDms(hold, 2);
      const ids = Array.from({ length: waits }, (_, i) => 90_000 + i);
      const events: number[] = [];
      for (const id of ids) {
        events.push((await post(server.url, { event: 'document_added', doc_id: String(id) })).body.event_id);
        // A duplicate "added" for a waiting unknown document joins it instead of queueing a second wait.
        if (id === ids[0])
          assert.equal((await post(server.url, { event: 'document_added', doc_id: String(id) })).body.duplicate, true);
      }
      // A real document delivered behind them is not stuck behind their waits of 10 s each (that would be minutes).
      const real = await post(server.url, { event: 'document_updated', doc_id: '3' });
      sim.faults.release(hold.id);
      for (const held of busy) assert.equal((await waitForEvent(server.url, held.body.event_id)).status, 'done');
      const done = await waitForEvent(server.url, real.body.event_id);
      assert.equal(done.status, 'done');
      const stillWaiting = await arrivalsWaiting(server.url);
      assert.equal(stillWaiting, ids.length, 'the real document overtook every waiting one');
      // The documents arrive in the dms at last: every waiting delivery runs them.
      for (const id of ids) sim.addDocument({ id, title: `Scan ${id}`, content: 'Lieferschein' });
      await arrivalsSettled(server.url);
      for (const id of [events[0], events[ids.length - 1]])
        assert.equal((await waitForEvent(server.url, id)).status, 'done');
    } finally {
      await server.close();
      await sim.close();
    }
  });

  it('a graceful stop keeps queued deliveries; the next start runs them', async () => {
    const sim = await startSimulator();
    const dataDir = tempDir();
    const slow = sim.faults.inject({ route: 'GET /api/documents/{id}/', kind: 'latency', ms: 1500 });
    let server = await startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token }, { dataDir });
    try {
      const accepted = [];
      for (const id of [1, 2, 3, 4, 5])
        accepted.push((await post(server.url, { event: 'document_updated', doc_id: String(id) })).body.event_id);
      await server.close();
      sim.faults.remove(slow.id);
      server = await startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token }, { dataDir });
      for (const id of accepted) assert.equal((await waitForEvent(server.url, id)).status, 'done');
    } finally {
      await server.close();
      await sim.close();
    }
  });

  it('a job interrupted by a stop resumes with one click and continues with the documents it had not reached', async () => {
    // More documents than one page of the largest size the job asks for (1,000), so there is a second page.
    const sim = await startSimulator({ generate: { count: 2400, seed: 5 } });
    const rulesDir = tempDir();
    const dataDir = tempDir();
    fs.writeFileSync(
      path.join(rulesDir, 'scan.yml'),
      'rules:\n  - id: scan\n    when: { content: { matches: "(?i)rechnung" } }\n    actions:\n      - add_tags: [Steuer]\n',
    );
    // The job's first page passes; every later page waits, so the stop comes mid-job on any machine.
    const hold = sim.faults.inject({
      route: 'GET /api/documents/',
      kind: 'hold',
      params: { page: /^([2-9]|\d{2,})$/ },
    });
    let server = await startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token }, { dataDir, rulesDir });
    try {
      const started = await startJob(server.url, 'rule_id=scan&dry_run=true');
      const id = started.body.event_id as number;
      await waitForEvent(server.url, id, (e) => (e.resume_after ?? 0) > 0);
      const closing = server.close();
      sim.faults.release(hold.id);
      await closing;
      server = await startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token }, { dataDir, rulesDir });
      const interrupted = (await call<EventRecord>(server.url, `/api/events/${id}`, { token: API_TOKEN })).body;
      assert.equal(interrupted.status, 'interrupted');
      const resumed = await call<{ event_id: number; resumes: number }>(server.url, `/api/events/${id}/resume`, {
        method: 'POST',
        token: API_TOKEN,
      });
      assert.equal(resumed.status, 202, JSON.stringify(resumed.body));
      assert.equal(resumed.body.resumes, id);
      const done = await waitForEvent(server.url, resumed.body.event_id);
      assert.equal(done.status, 'done');
      const before = countUpTo(sim.store.documents.keys(), interrupted.resume_after as number);
      assert.ok(
        before > 0 && (interrupted.processed ?? 0) >= before,
        'the interrupted job had done the documents up to its resume point',
      );
      assert.equal(done.total, sim.store.documents.size - before, 'the resumed job has only the documents not reached');
      assert.equal(done.processed, done.total);
      const again = await call(server.url, `/api/events/${id}/resume`, { method: 'POST', token: API_TOKEN });
      assert.equal(again.status, 409, 'a job is resumed once');
    } finally {
      await server.close();
      await sim.close();
    }
  });
});

function countUpTo(ids: Iterable<number>, last: number): number {
  let n = 0;
  for (const id of ids) if (id <= last) n++;
  return n;
}
