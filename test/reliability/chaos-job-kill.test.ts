import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventRecord } from '../../server/history/event-types.js';
import { startSimulator } from '../../tools/paperless-sim/simulator.js';
import type { ChildServer } from '../helpers/child-server.js';
import { API_TOKEN, call } from '../helpers/test-server.js';
import { eventOf, killLive, seeded, serviceDirs, startLive, until } from './support/chaos-kit.js';

// Not idempotent: every write adds one "+", so a document written twice shows as "++".
const PLUS = `
rules:
  - id: plus
    actions:
      - set_title: "{{ doc.title }}+"
`;

test('a run-all job killed at two seeded points and resumed each time writes every document exactly once', async () => {
  const random = seeded(21);
  const sim = await startSimulator({ seedDocuments: false, generate: { count: 40, seed: 3 } });
  const dirs = serviceDirs(sim, PLUS);
  const ids = [...sim.store.documents.keys()];
  const before = new Map(ids.map((id) => [id, sim.store.getDocument(id)?.title]));
  const patches = () => sim.counts()['PATCH /api/documents/{id}/'] ?? 0;
  // Each write answers a little later than it is applied: a kill lands between the two as often as not.
  sim.faults.inject({ route: 'PATCH /api/documents/{id}/', kind: 'latency', ms: 20, after: true });
  let server: ChildServer | undefined;
  let kills = 0;
  try {
    server = await startLive(dirs, null);
    const started = await call<{ event_id: number }>(server.url, '/api/run?rule_id=plus&dry_run=false', {
      method: 'POST',
      token: API_TOKEN,
    });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    let job = started.body.event_id;
    for (let k = 0; k < 2; k++) {
      // A seeded point within the writes still to come.
      const at = patches() + 1 + random(Math.max(1, Math.floor((ids.length - patches()) / 2)));
      await until(patches, (n) => n >= at, `write ${at}`);
      await killLive(server, null);
      kills++;
      server = await startLive(dirs, null);
      const live = server;
      await until(
        () => eventOf(live.url, job),
        (e) => e.status === 'interrupted',
        'the job to be marked interrupted',
      );
      const resumed = await call<EventRecord>(server.url, `/api/events/${job}/resume`, {
        method: 'POST',
        token: API_TOKEN,
      });
      assert.ok(resumed.status < 300, JSON.stringify(resumed.body));
      job = resumed.body.event_id;
    }
    const live = server;
    const done = await until(
      () => eventOf(live.url, job),
      (e) => e.status === 'done' || e.status === 'failed',
      'the last resumed job to end',
    );
    assert.equal(done.status, 'done', JSON.stringify(done));
    const wrong = ids.filter((id) => sim.store.getDocument(id)?.title !== `${before.get(id)}+`);
    console.log(
      `chaos job: ${ids.length} documents, ${kills} kills, ${patches()} PATCHes, ${wrong.length} not written exactly once`,
    );
    assert.deepEqual(
      wrong.map((id) => [id, sim.store.getDocument(id)?.title]),
      [],
      'every document has exactly one "+"',
    );
  } finally {
    await server?.kill();
    await sim.close();
  }
});
