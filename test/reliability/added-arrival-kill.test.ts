import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventsOf, killScenario, until } from './support/chaos-kit.js';

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
  const scenario = killScenario(RULES);

  test('the next start knows the arrival was run: the document is written once', async () => {
    const { sim } = scenario;
    await scenario.start();
    await scenario.kill();
    const doc = sim.addDocument({ title: 'Scan', content: 'Rechnung' }).id;
    // Paperless applies the catch-up's write and its answer waits: the service dies before it learns the outcome.
    const hold = sim.faults.inject({ route: 'PATCH /api/documents/{id}/', kind: 'hold', after: true, times: 1 });
    await scenario.start();
    await until(
      () => sim.store.getDocument(doc)?.title,
      (title) => title === 'Scan+',
      'the dms to apply the write',
    );
    await scenario.kill();
    sim.faults.release(hold.id);

    const server = await scenario.start();
    await until(
      async () => (await eventsOf(server.url, 'catchup'))[0],
      (event) => event?.status === 'done',
      "the restart's catch-up to end",
    );
    assert.equal(sim.store.getDocument(doc)?.title, 'Scan+', 'the added arrival was not run a second time');
  });
});
