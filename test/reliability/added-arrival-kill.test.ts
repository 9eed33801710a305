import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import type { ChildServer } from '../helpers/child-server.js';
import { eventsOf, killLive, serviceDirs, startLive, until } from './support/chaos-kit.js';

// Not idempotent: a second run of the document's arrival shows as a second "+".
const RULES = `
rules:
  - id: plus
    on: [added, updated]
    actions:
      - set_title: "{{ doc.title }}+"
`;

// A document added while the service was down is its `added` arrival, whoever wrote it first; once that arrival
// was run, it is not one any more. What says so must survive the kill that cut the run short.
describe("a kill during catch-up's run of a document added while the service was down", () => {
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

  test('the next start knows the arrival was run: the document is written once', async () => {
    server = await startLive(dirs, null);
    await killLive(server, null);
    const doc = sim.addDocument({ title: 'Scan', content: 'Rechnung' }).id;
    // Paperless applies the catch-up's write and its answer waits: the service dies before it learns the outcome.
    const hold = sim.faults.inject({ route: 'PATCH /api/documents/{id}/', kind: 'hold', after: true, times: 1 });
    server = await startLive(dirs, null);
    await until(
      () => sim.store.getDocument(doc)?.title,
      (title) => title === 'Scan+',
      'the dms to apply the write',
    );
    await killLive(server, null);
    sim.faults.release(hold.id);

    server = await startLive(dirs, null);
    const live = server;
    await until(
      async () => (await eventsOf(live.url, 'catchup'))[0],
      (event) => event?.status === 'done',
      "the restart's catch-up to end",
    );
    assert.equal(sim.store.getDocument(doc)?.title, 'Scan+', 'the added arrival was not run a second time');
  });
});
