import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Trace } from '../../server/engine/model.js';
import type { EventRecord } from '../../server/history/event-types.js';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { API_TOKEN, call, tempDir } from '../helpers/test-server.js';
import { deliver, ended, eventOf, until } from './support/chaos-kit.js';

// Not idempotent on purpose: every run that writes adds one "+", so a write sent twice shows as "++".
const PLUS = `
rules:
  - id: plus
    on: [added, updated]
    actions:
      - set_title: "{{ doc.title }}+"
`;

// The kill lands between Paperless's commit and its answer: the simulator applies the write and holds its answer
// (a `hold` fault with `after`), the service is killed while it waits. Deterministic, whatever the machine's speed.
describe('a kill between the dms applying a write and answering', () => {
  let sim: Simulator;
  let dirs: Record<string, string>;
  let server: ChildServer | undefined;

  before(async () => {
    sim = await startSimulator({ seedDocuments: true, generate: { count: 40, seed: 7 } });
    dirs = { SVC_DATA_DIR: tempDir(), SVC_RULES_DIR: tempDir(), SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token };
    fs.writeFileSync(path.join(dirs.SVC_RULES_DIR, 'plus.yml'), PLUS);
  });
  after(async () => {
    await server?.kill();
    await sim.close();
  });

  test('a webhook delivery is written once, its event done with its traces, after the restart', async () => {
    server = await startChildServer(dirs);
    const title = sim.store.getDocument(3)?.title;
    const hold = sim.faults.inject({ route: 'PATCH /api/documents/{id}/', kind: 'hold', after: true, times: 1 });
    const accepted = await deliver(server.url, 3);
    // Paperless has the new title; its answer has not left.
    await until(
      () => sim.store.getDocument(3)?.title,
      (t) => t === `${title}+`,
      'the dms to apply the write',
    );
    await server.kill('SIGKILL');
    sim.faults.release(hold.id);

    server = await startChildServer(dirs);
    const done = await ended(server.url, accepted, 'the restored delivery to end');
    assert.equal(done.status, 'done', JSON.stringify(done));
    assert.equal(sim.store.getDocument(3)?.title, `${title}+`, 'the write was not sent a second time');
    const traces = (
      await call<{ traces: Trace[] }>(server.url, `/api/traces?event_id=${accepted}`, {
        token: API_TOKEN,
      })
    ).body.traces;
    assert.equal(traces.length, 1, 'the done event has its trace');
    assert.equal(traces[0].actions[0]?.status, 'applied');
    // The reconciliation's record is appended without a sync of its own (a later start would redo it).
    await until(
      () => fs.readFileSync(path.join(dirs.SVC_DATA_DIR, 'write-journal.jsonl'), 'utf8'),
      (journal) => /"t":"end".*"reconciled":true/.test(journal),
      'the restart to record the write as found applied from the document itself',
    );
  });

  test('a write whose request never reached the dms is planned afresh and written once', async () => {
    server ??= await startChildServer(dirs);
    const title = sim.store.getDocument(5)?.title;
    // Held before it is applied: the journal has the write, Paperless never got it.
    const hold = sim.faults.inject({ route: 'PATCH /api/documents/{id}/', kind: 'hold', times: 1 });
    const accepted = await deliver(server.url, 5);
    await until(
      () => hold.hits,
      (hits) => hits > 0,
      'the write to reach the dms',
    );
    await server.kill('SIGKILL');
    sim.faults.remove(hold.id);
    server = await startChildServer(dirs);
    const done = await ended(server.url, accepted, 'the restored delivery to end');
    assert.equal(done.status, 'done', JSON.stringify(done));
    sim.faults.release(hold.id);
    assert.equal(sim.store.getDocument(5)?.title, `${title}+`, 'written once, after the restart');
  });

  test('a job killed mid-page and resumed writes every document exactly once', async () => {
    server ??= await startChildServer(dirs);
    const ids = [...sim.store.documents.keys()];
    const before = new Map(ids.map((id) => [id, sim.store.getDocument(id)?.title]));
    // Every PATCH is applied and its answer held: the job dies with writes of its page applied and unrecorded.
    const hold = sim.faults.inject({ route: 'PATCH /api/documents/{id}/', kind: 'hold', after: true });
    const started = await call<{ event_id: number }>(server.url, '/api/run?rule_id=plus&dry_run=false', {
      method: 'POST',
      token: API_TOKEN,
    });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    await until(
      () => hold.hits,
      (hits) => hits >= 4,
      'writes of the page to be held',
    );
    await server.kill('SIGKILL');
    sim.faults.release(hold.id);
    // The restart's reconciliation reads each document; held, so the job is resumed before it has finished.
    const reading = sim.faults.inject({ route: 'GET /api/documents/{id}/', kind: 'hold' });

    server = await startChildServer(dirs);
    const interrupted = await until(
      () => eventOf(server!.url, started.body.event_id),
      (e) => e.status === 'interrupted',
      'the job to be marked interrupted',
    );
    const requestsBefore = sim.requests().length;
    const resumed = await call<EventRecord>(server.url, `/api/events/${interrupted.event_id}/resume`, {
      method: 'POST',
      token: API_TOKEN,
    });
    assert.ok(resumed.status < 300, JSON.stringify(resumed.body));
    // The resumed job runs, and waits for the reconciliation before it reads a page and decides what is done.
    await until(
      () => eventOf(server!.url, resumed.body.event_id),
      (e) => e.status === 'running',
      'the resumed job to start',
    );
    assert.deepEqual(
      sim
        .requests()
        .slice(requestsBefore)
        .filter((r) => /^GET \/api\/documents\/\?.*page=1/.test(r)),
      [],
      'no page read before the reconciliation',
    );
    sim.faults.release(reading.id);
    await until(
      () => eventOf(server!.url, resumed.body.event_id),
      (e) => e.status === 'done',
      'the resumed job to finish',
    );
    const doubled = ids.filter((id) => sim.store.getDocument(id)?.title !== `${before.get(id)}+`);
    assert.deepEqual(
      doubled.map((id) => [id, sim.store.getDocument(id)?.title]),
      [],
      'every document has exactly one "+"',
    );
  });
});
