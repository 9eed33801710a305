import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Trace } from '../../server/engine/model.js';
import { arrivalsSettled, echoesSkipped } from '../helpers/arrivals.js';
import { API_TOKEN, call } from '../helpers/test-server.js';
import { holdRunSlots, startBurstRig } from './support/burst-kit.js';
import { deliver, type Rig } from './support/jobs-kit.js';

describe('a burst of webhook deliveries', () => {
  let rig: Rig;
  before(async () => {
    rig = await startBurstRig();
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
    const release = await holdRunSlots(rig);
    const before = sim.counts();
    const skippedBefore = await echoesSkipped(server.url);
    const events = await Promise.all(docs.map((doc) => deliver(server.url, doc)));
    release();
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

  it('runs a person’s bulk edit of tags beside the service’s tag without reading each document’s audit log', async () => {
    const { sim, server } = rig;
    const docs = Array.from({ length: 8 }, (_, i) => sim.addDocument({ title: `Akte ${i}`, tags: [] }).id);
    for (const doc of docs) await deliver(server.url, doc);
    await arrivalsSettled(server.url);
    const marked = sim.store.objects.tags.find((t) => t.name === 'rules-processed')!.id;
    // A person puts a tag of their own beside the service's on every document, as a bulk edit does.
    const own = sim.store.objects.tags.find((t) => t.id !== marked)!.id;
    for (const doc of docs) sim.editAs(doc, { tags: [marked, own] }, 'ben', { webhook: false });

    const before = sim.counts();
    const skippedBefore = await echoesSkipped(server.url);
    const events = await Promise.all(docs.map((doc) => deliver(server.url, doc)));
    await arrivalsSettled(server.url);
    const after = sim.counts();

    // The tag beside the service's write is someone else's change: run as such, from the documents alone. Only a
    // document exactly as the service left it needs its audit log to tell an echo from a person.
    const historyReads = (counts: Record<string, number>) => counts['GET /api/documents/{id}/history/'] ?? 0;
    assert.equal(historyReads(after) - historyReads(before), 0);
    assert.equal((await echoesSkipped(server.url)) - skippedBefore, 0);
    for (const event of events) {
      const { traces } = (
        await call<{ traces: Trace[] }>(server.url, `/api/traces?event_id=${event.body.event_id}`, { token: API_TOKEN })
      ).body;
      assert.deepEqual(
        traces.map((t) => t.rule_id),
        ['mark-edited'],
      );
    }
  });
});
