import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Trace } from '../../server/engine/model.js';
import { arrivalsSettled, echoesSkipped } from '../helpers/arrivals.js';
import { API_TOKEN, call } from '../helpers/test-server.js';
import { holdRunSlots, startBurstRig } from './support/burst-kit.js';
import { deliver, getEvent, type Rig } from './support/jobs-kit.js';

describe('a burst of webhook deliveries written together', () => {
  let rig: Rig;
  let tag: number;
  before(async () => {
    rig = await startBurstRig();
    tag = rig.sim.store.objects.tags.find((t) => t.name === 'rules-processed')?.id as number;
  });
  after(async () => rig?.close());

  it('reads the burst with list requests by ids and writes it with grouped bulk edits, each delivery recorded as alone', async () => {
    const { sim, server } = rig;
    const docs = Array.from({ length: 30 }, (_, i) => sim.addDocument({ title: `Brief ${i}`, tags: [] }).id);
    const release = await holdRunSlots(rig, [tag]);
    const before = sim.counts();
    const events = await Promise.all(docs.map((doc) => deliver(server.url, doc)));
    release();
    await arrivalsSettled(server.url);
    const counts = sim.counts();
    const delta = (key: string) => (counts[key] ?? 0) - (before[key] ?? 0);

    for (const doc of docs) assert.ok(sim.store.getDocument(doc)?.tags.includes(tag), `document ${doc} tagged`);
    // Alone, each of the 30 would read its document, read its write state and send its own bulk edit.
    assert.ok(delta('POST /api/documents/bulk_edit/') <= 2, `bulk edits: ${delta('POST /api/documents/bulk_edit/')}`);
    assert.equal(delta('GET /api/documents/{id}/'), 0, 'no document of the burst read alone');
    assert.ok(delta('GET /api/documents/') <= 8, `list requests: ${delta('GET /api/documents/')}`);

    // Each delivery's own event, trace and write-journal record, as a delivery alone has them.
    const journal = fs
      .readFileSync(path.join(server.dataDir, 'write-journal.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.includes('"writes"'));
    for (const [i, doc] of docs.entries()) {
      const id = events[i].body.event_id;
      const event = await getEvent(server.url, id);
      assert.equal(event.status, 'done', JSON.stringify(event));
      assert.equal(event.changed, 1);
      const traces = (await call<{ traces: Trace[] }>(server.url, `/api/traces?event_id=${id}`, { token: API_TOKEN }))
        .body.traces;
      assert.deepEqual(
        traces.map((t) => [t.document, t.rule_id, t.actions.map((a) => a.status)]),
        [[doc, 'mark-edited', ['applied']]],
      );
      assert.equal(
        journal.filter((line) => line.includes(`"doc":${doc},`) && line.includes(`"event":${id},`)).length,
        1,
        `one journal record for document ${doc}`,
      );
    }
  });

  it('attributes a person’s change made during the burst’s bulk edit as it is alone: the rules run on it', async () => {
    const { sim, server } = rig;
    const docs = Array.from({ length: 8 }, (_, i) => sim.addDocument({ title: `Rechnung ${i}`, tags: [] }).id);
    const [person, untouched] = [docs[3], docs[4]];
    // Anna's edit lands inside the service's bulk edit of her document, after its save and before its answer.
    sim.duringNextWrite(person, { title: 'Rechnung 3, paid' }, 'anna', { webhook: false });
    const release = await holdRunSlots(rig, [tag]);
    const before = sim.counts();
    await Promise.all(docs.map((doc) => deliver(server.url, doc)));
    release();
    await arrivalsSettled(server.url);
    const bulkEdits =
      (sim.counts()['POST /api/documents/bulk_edit/'] ?? 0) - (before['POST /api/documents/bulk_edit/'] ?? 0);
    assert.ok(bulkEdits <= 2, `written with grouped bulk edits: ${bulkEdits}`);
    assert.equal(sim.store.getDocument(person)?.title, 'Rechnung 3, paid');

    // Paperless's "Document Updated" for both: the untouched one is the service's echo, Anna's change is hers.
    const skipped = await echoesSkipped(server.url);
    const [, theirs] = await Promise.all([deliver(server.url, untouched), deliver(server.url, person)]);
    await arrivalsSettled(server.url);
    assert.equal((await echoesSkipped(server.url)) - skipped, 1, 'only the untouched document is taken as an echo');
    const traces = (
      await call<{ traces: Trace[] }>(server.url, `/api/traces?event_id=${theirs.body.event_id}`, { token: API_TOKEN })
    ).body.traces;
    assert.deepEqual(
      traces.map((t) => [t.document, t.rule_id]),
      [[person, 'mark-edited']],
    );
  });
});
