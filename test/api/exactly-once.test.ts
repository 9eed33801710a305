import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Trace } from '../../server/engine/model.js';
import type { EventRecord } from '../../server/history/event-types.js';
import type { ArrivalStatus } from '../../server/runs/catch-up/catch-up-service.js';
import { API_TOKEN, call } from '../helpers/test-server.js';
import { editInDms, startRig, waitForEvent, type Rig } from './support/jobs-kit.js';

// Not idempotent on purpose: every run that writes adds one "!", so a second run of one change shows.
const BANG = `
rules:
  - id: bang
    on: [added, updated]
    when: { title: { contains: "" } }
    actions:
      - set_title: "{{ doc.title }}!"
`;

async function deliver(rig: Rig, document: number, event = 'document_updated'): Promise<number> {
  const res = await call<{ event_id: number }>(rig.server.url, '/api/webhook/dms', { token: API_TOKEN, body: { event, doc_id: String(document) } });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return res.body.event_id;
}

async function arrival(rig: Rig): Promise<ArrivalStatus> {
  const res = await call<{ arrival: ArrivalStatus }>(rig.server.url, '/api/health', { token: API_TOKEN });
  return res.body.arrival;
}

const tracesOfEvent = async (rig: Rig, eventId: number) =>
  (await call<{ traces: Trace[] }>(rig.server.url, `/api/traces?event_id=${eventId}`, { token: API_TOKEN })).body.traces;

describe('exactly once, person first (issue 22)', () => {
  it('a write the dms refuses is not handled: it is tried again with backoff and then written once', async () => {
    const rig = await startRig(BANG);
    try {
      const title = rig.sim.store.getDocument(4)?.title;
      // Paperless refuses the service's PATCH twice (a permission fixed meanwhile, say), then takes it.
      rig.sim.faults.inject({ route: 'PATCH /api/documents/{id}/', kind: 'status', status: 403, times: 2 });
      const eventId = await deliver(rig, 4);
      const retrying = await waitForEvent(rig.server.url, eventId, (e) => e.status === 'queued' && /trying again at/.test(e.error ?? ''));
      assert.match(retrying.error ?? '', /tried 1 time\(s\)/);
      const done = await waitForEvent(rig.server.url, eventId);
      assert.equal(done.status, 'done', JSON.stringify(done));
      assert.equal(done.error, null);
      assert.equal(rig.sim.store.getDocument(4)?.title, `${title}!`, 'written exactly once after the refusals');
      assert.deepEqual((await arrival(rig)).failed_documents, [], 'no longer failed once applied');
    } finally {
      await rig.close();
    }
  });

  it('a write the dms keeps refusing ends failed after the bounded tries, visible in health with the dms message', async () => {
    const rig = await startRig(BANG);
    try {
      rig.sim.faults.inject({ route: 'PATCH /api/documents/{id}/', kind: 'status', status: 403 });
      const eventId = await deliver(rig, 5);
      const failed = await waitForEvent(rig.server.url, eventId);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error ?? '', /tried 6 times; run it by hand once the cause is fixed/);
      const [listed] = (await arrival(rig)).failed_documents;
      assert.equal(listed.document, 5);
      assert.equal(listed.attempts, 6);
      assert.match(listed.message, /403/);
    } finally {
      await rig.close();
    }
  });

  it("a person's change made while the service writes is not taken for the service's echo: the person's webhook runs the rules", async () => {
    const rig = await startRig(BANG);
    try {
      // The service's PATCH is held at the dms while a person sets the correspondent.
      const slow = rig.sim.faults.inject({ route: 'PATCH /api/documents/{id}/', kind: 'latency', ms: 400, times: 1 });
      const first = await deliver(rig, 6);
      for (let i = 0; i < 2000 && (rig.sim.faults.list().find((f) => f.id === slow.id)?.hits ?? 1) === 0; i++) await new Promise((r) => setTimeout(r, 5));
      await editInDms(rig.sim, 6, { correspondent: 1 });
      assert.equal((await waitForEvent(rig.server.url, first)).status, 'done');
      // The dms answered the service's PATCH with the whole stored document: the person's correspondent is in it.
      const personal = await deliver(rig, 6);
      const event: EventRecord = await waitForEvent(rig.server.url, personal, (e) => e.status === 'done' || e.status === 'failed', 10_000).catch(
        (err: unknown) => ({ status: 'discarded', error: String(err) }) as unknown as EventRecord,
      );
      assert.equal(event.status, 'done', "the person's delivery ran (it was not skipped as the service's own echo)");
      assert.equal((await tracesOfEvent(rig, personal)).length, 1, "one trace of the bang rule for the person's change");
    } finally {
      await rig.close();
    }
  });
});
