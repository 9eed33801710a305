import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { EventRecord } from '../../server/history/event-types.js';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import { arrivalsWaiting } from '../helpers/arrivals.js';
import type { ChildServer } from '../helpers/child-server.js';
import { API_TOKEN, call } from '../helpers/test-server.js';
import { killLive, serviceDirs, startLive, tracesOf, until } from './support/chaos-kit.js';

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

const deliver = async (server: ChildServer, doc: number, event: string) => {
  const res = await call<{ event_id: number }>(server.url, '/api/webhook/dms', {
    token: API_TOKEN,
    body: { event, doc_id: String(doc) },
  });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return res.body.event_id;
};

// Paperless logs a token request's note without an actor; the service knows it as its own by the id Paperless
// answered with. A kill after Paperless stored the note and before its answer leaves the journal without that id.
describe("a kill between Paperless storing the service's note and its answer", () => {
  let sim: Simulator;
  let dirs: Record<string, string>;
  let server: ChildServer | undefined;

  before(async () => {
    sim = await startSimulator();
    dirs = serviceDirs(sim, RULES);
  });
  after(async () => {
    await server?.kill();
    await sim.close();
  });

  test("the note is still known as the service's own after the restart: its echo runs nothing", async () => {
    server = await startLive(dirs, null);
    const doc = sim.addDocument({ title: 'Scan', content: 'Rechnung' }).id;
    const hold = sim.faults.inject({ route: 'POST /api/documents/{id}/notes/', kind: 'hold', after: true, times: 1 });
    const added = await deliver(server, doc, 'document_added');
    await until(
      () => sim.store.getDocument(doc)?.notes.length ?? 0,
      (n) => n === 1,
      'Paperless to store the note',
    );
    await killLive(server, null);
    sim.faults.release(hold.id);

    server = await startLive(dirs, null);
    const live = server;
    await until(
      async () => (await call<EventRecord>(live.url, `/api/events/${added}`, { token: API_TOKEN })).body.status,
      (status) => status === 'done' || status === 'failed',
      'the cut-short delivery to end',
    );
    assert.equal(sim.store.getDocument(doc)?.title, 'Scan+');

    // Paperless's "Document Updated" for the service's own title write, late.
    const echo = await deliver(server, doc, 'document_updated');
    await until(
      () => arrivalsWaiting(live.url),
      (n) => n === 0,
      'the echo to be judged',
    );
    assert.equal(sim.store.getDocument(doc)?.title, 'Scan+', 'the echo did not run the rules again');
    assert.equal(sim.store.getDocument(doc)?.notes.length, 1);
    assert.deepEqual(await tracesOf(live.url, `event_id=${echo}`), [], 'no run for the echo');
  });
});
