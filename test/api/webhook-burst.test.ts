import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Trace } from '../../server/engine/model.js';
import { arrivalsSettled, echoesSkipped, heldAtDms } from '../helpers/arrivals.js';
import { API_TOKEN, TEST_TIMINGS, call } from '../helpers/test-server.js';
import { deliver, startRig, type Rig } from './support/jobs-kit.js';

const RULES = `
rules:
  - id: mark-edited
    on: [updated]
    actions:
      - add_tags: [rules-processed]
`;

describe('a burst of webhook deliveries', () => {
  let rig: Rig;
  before(async () => {
    // Two deliveries at once, whatever the simulator serves: two held documents fill the run slots.
    rig = await startRig(
      RULES,
      {},
      {},
      { timings: { ...TEST_TIMINGS, webhook: { ...TEST_TIMINGS.webhook, concurrency: 2 } } },
    );
  });
  after(async () => rig?.close());

  it('is read with list requests by ids, and a person’s change inside it is attributed as it is alone', async () => {
    const { sim, server } = rig;
    const docs = Array.from({ length: 12 }, (_, i) => sim.addDocument({ title: `Brief ${i}`, tags: [] }).id);
    // The service writes every document once: Paperless's "Document Updated" for each is then its own echo.
    for (const doc of docs) await deliver(server.url, doc);
    await arrivalsSettled(server.url);
    const person = docs[5];
    sim.editAs(person, { title: 'Brief 5, paid' }, 'anna', { webhook: false });

    // Both run slots are busy with two other documents whose reads are held, so the burst waits as a whole.
    const slots = [sim.addDocument({ title: 'A', tags: [] }).id, sim.addDocument({ title: 'B', tags: [] }).id];
    const holds = slots.map((id) => sim.faults.inject({ route: `GET /api/documents/${id}/`, kind: 'hold', times: 1 }));
    for (const id of slots) await deliver(server.url, id);
    for (const hold of holds) await heldAtDms(hold, 1);
    const before = sim.counts();
    const skippedBefore = await echoesSkipped(server.url);
    const events = await Promise.all(docs.map((doc) => deliver(server.url, doc)));
    for (const hold of holds) sim.faults.release(hold.id);
    await arrivalsSettled(server.url);
    const counts = sim.counts();
    const delta = (key: string) => (counts[key] ?? 0) - (before[key] ?? 0);

    // Without batching each of the 12 is one read of its own; read ahead, they come in a few lists by ids.
    assert.ok(delta('GET /api/documents/{id}/') <= 3, `single reads: ${delta('GET /api/documents/{id}/')}`);
    assert.ok(delta('GET /api/documents/') >= 1, 'the burst was read with list requests');

    // Attribution as alone: the eleven echoes are skipped, the person's change runs the rules.
    assert.equal((await echoesSkipped(server.url)) - skippedBefore, 11);
    const personEvent = events[5].body.event_id;
    const traces = (
      await call<{ traces: Trace[] }>(server.url, `/api/traces?event_id=${personEvent}`, { token: API_TOKEN })
    ).body.traces;
    assert.deepEqual(
      traces.map((t) => [t.document, t.rule_id]),
      [[person, 'mark-edited']],
    );
  });
});
