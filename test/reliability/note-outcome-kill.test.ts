import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { arrivalsWaiting } from '../helpers/arrivals.js';
import { deliver, ended, killScenario, tracesOf, until } from './support/chaos-kit.js';

// Not idempotent: a run on the service's own echo shows as a second "+".
const RULES = `
rules:
  - id: plus
    on: [added, updated]
    actions:
      - set_title: "{{ doc.title }}+"
  - id: stamp
    on: [added, updated]
    actions:
      - add_note: "Eingang #{{ doc.id }}"
`;

// Paperless logs a token request's note without an actor; the service knows it as its own by the id Paperless
// answered with. A kill after Paperless stored the note and before its answer leaves the journal without that id.
describe("a kill between Paperless storing the service's note and its answer", () => {
  const scenario = killScenario(RULES);

  test("the note is still known as the service's own after the restart: its echo runs nothing", async () => {
    const { sim } = scenario;
    let server = await scenario.start();
    const doc = sim.addDocument({ title: 'Scan', content: 'Rechnung' }).id;
    const hold = sim.faults.inject({ route: 'POST /api/documents/{id}/notes/', kind: 'hold', after: true, times: 1 });
    const added = await deliver(server.url, doc, 'document_added');
    await until(
      () => sim.store.getDocument(doc)?.notes.length ?? 0,
      (n) => n === 1,
      'Paperless to store the note',
    );
    await scenario.kill();
    sim.faults.release(hold.id);

    server = await scenario.start();
    await ended(server.url, added, 'the cut-short delivery to end');
    assert.equal(sim.store.getDocument(doc)?.title, 'Scan+');

    // Paperless's "Document Updated" for the service's own title write, late.
    const echo = await deliver(server.url, doc, 'document_updated');
    await until(
      () => arrivalsWaiting(server.url),
      (n) => n === 0,
      'the echo to be judged',
    );
    assert.equal(sim.store.getDocument(doc)?.title, 'Scan+', 'the echo did not run the rules again');
    assert.equal(sim.store.getDocument(doc)?.notes.length, 1);
    assert.deepEqual(await tracesOf(server.url, `event_id=${echo}`), [], 'no run for the echo');
  });
});
