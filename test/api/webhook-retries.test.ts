import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ArrivalStatus } from '../../server/runs/arrival/arrival-status.js';
import { arrivalsSettled, heldAtDms } from '../helpers/arrivals.js';
import { API_TOKEN, call } from '../helpers/test-server.js';
import { deliver, getEvent, startRig, waitForEvent, type Rig } from './support/jobs-kit.js';

const RULES = `
rules:
  - id: mark-edited
    on: [updated]
    actions:
      - add_tags: [rules-processed]
`;

async function health(rig: Rig): Promise<{ arrival: ArrivalStatus; dms: { reachable: boolean } }> {
  return (
    await call<{ arrival: ArrivalStatus; dms: { reachable: boolean } }>(rig.server.url, '/api/health', {
      token: API_TOKEN,
    })
  ).body;
}

describe('webhook deliveries that fail end visibly, never queued forever', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig(RULES);
  });
  after(async () => rig?.close());

  it('a retry superseded by a newer delivery for the same document closes its event as merged', async () => {
    const doc = rig.sim.addDocument({ title: 'Rechnung', tags: [] }).id;
    // The first run is held at its read, so a second delivery for the document queues behind it.
    const hold = rig.sim.faults.inject({ route: `GET /api/documents/${doc}/`, kind: 'hold', times: 1 });
    const first = await deliver(rig.server.url, doc);
    await heldAtDms(hold, 1);
    const second = await deliver(rig.server.url, doc);
    assert.notEqual(second.body.event_id, first.body.event_id);
    // The first run's write is refused once: it asks to be tried again, and finds the second delivery waiting.
    rig.sim.faults.inject({ route: 'POST /api/documents/bulk_edit/', kind: 'status', status: 400, times: 1 });
    rig.sim.faults.release(hold.id);
    await arrivalsSettled(rig.server.url);

    const older = await getEvent(rig.server.url, first.body.event_id);
    assert.equal(older.status, 'done', JSON.stringify(older));
    assert.match(older.error ?? '', new RegExp(`merged into webhook event ${second.body.event_id}`));
    const newer = await waitForEvent(rig.server.url, second.body.event_id);
    assert.equal(newer.status, 'done', JSON.stringify(newer));
    assert.ok(rig.sim.store.documents.get(doc)?.tags.length, 'the newer delivery wrote the document');
    assert.equal((await health(rig)).arrival.waiting, 0);
  });

  it('a document read the dms fails is tried again with backoff, then listed in failed_documents', async () => {
    const doc = rig.sim.addDocument({ title: 'Vertrag', tags: [] }).id;
    // The dms is gone: every request's connection is cut.
    const outage = rig.sim.faults.inject({ kind: 'drop' });
    const accepted = await deliver(rig.server.url, doc);
    const failed = await waitForEvent(rig.server.url, accepted.body.event_id);
    const afterOutage = await health(rig);
    rig.sim.faults.remove(outage.id);

    assert.equal(failed.status, 'failed', JSON.stringify(failed));
    assert.match(failed.error ?? '', /tried 6 times/);
    assert.equal(afterOutage.dms.reachable, false, 'the failed requests marked the dms unreachable at once');
    const listed = afterOutage.arrival.failed_documents.find((f) => f.document === doc);
    assert.ok(listed, JSON.stringify(afterOutage.arrival.failed_documents));
    assert.equal(listed.attempts, 6);
    assert.match(listed.message, new RegExp(`failed to read document ${doc}`));

    // Once the dms answers, the next delivery runs it and the failure is over.
    const again = await deliver(rig.server.url, doc);
    assert.equal((await waitForEvent(rig.server.url, again.body.event_id)).status, 'done');
    assert.equal((await health(rig)).arrival.failed_documents.filter((f) => f.document === doc).length, 0);
  });
});
