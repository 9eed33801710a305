import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Trace } from '../../server/engine/model.js';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { API_TOKEN, call, tempDir } from '../helpers/test-server.js';
import { deliver, ended, until } from './support/chaos-kit.js';

const RULES = `
rules:
  - id: mark-edited
    on: [updated]
    actions:
      - add_tags: [rules-processed]
`;

// A batch forms for certain from the deliveries a restart restores: they all wait at once when the queue starts.
describe('a kill in the middle of a batch of webhook deliveries', () => {
  let sim: Simulator;
  let dirs: Record<string, string>;
  let server: ChildServer | undefined;

  before(() => {
    dirs = { SVC_DATA_DIR: tempDir(), SVC_RULES_DIR: tempDir() };
    fs.writeFileSync(path.join(dirs.SVC_RULES_DIR, 'mark.yml'), RULES);
  });
  after(async () => {
    await server?.kill();
    await sim?.close();
  });

  test('loses no delivery and sends no write twice', async () => {
    sim = await startSimulator({ seedDocuments: true });
    Object.assign(dirs, { SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token });
    const tag = sim.store.objects.tags.find((t) => t.name === 'rules-processed')?.id as number;
    const docs = Array.from({ length: 12 }, (_, i) => sim.addDocument({ title: `Brief ${i}`, tags: [] }).id);

    // The first service accepts the burst and dies before any delivery has read its document.
    const reads = [
      sim.faults.inject({ route: 'GET /api/documents/', kind: 'hold' }),
      sim.faults.inject({ route: 'GET /api/documents/{id}/', kind: 'hold' }),
    ];
    server = await startChildServer(dirs);
    const events: number[] = [];
    for (const doc of docs) events.push(await deliver(server.url, doc));
    await server.kill('SIGKILL');
    for (const hold of reads) sim.faults.remove(hold.id);

    // The second runs them as one batch; Paperless applies its bulk edit and the service dies awaiting the answer.
    const bulk = sim.faults.inject({ route: 'POST /api/documents/bulk_edit/', kind: 'hold', after: true, times: 1 });
    server = await startChildServer(dirs);
    await until(
      () => docs.filter((doc) => sim.store.getDocument(doc)?.tags.includes(tag)).length,
      (tagged) => tagged === docs.length,
      'the batch’s bulk edit to be applied',
    );
    await server.kill('SIGKILL');
    sim.faults.release(bulk.id);
    assert.equal(sim.counts()['POST /api/documents/bulk_edit/'], 1, 'the whole batch went in one bulk edit');

    // The third finds every delivery's write in the journal, applied: recorded done with its trace, not sent again.
    sim.resetCounts();
    server = await startChildServer(dirs);
    for (const [i, id] of events.entries()) {
      const end = await ended(server.url, id, `delivery ${id} to end`);
      assert.equal(end.status, 'done', JSON.stringify(end));
      const traces: Trace[] = (
        await call<{ traces: Trace[] }>(server.url, `/api/traces?event_id=${id}`, { token: API_TOKEN })
      ).body.traces;
      assert.deepEqual(
        traces.map((t) => [t.document, t.rule_id]),
        [[docs[i], 'mark-edited']],
        `delivery ${id} has its one trace`,
      );
    }
    assert.equal(sim.counts()['POST /api/documents/bulk_edit/'] ?? 0, 0, 'nothing was written again');
    assert.equal(sim.counts()['PATCH /api/documents/{id}/'] ?? 0, 0, 'nothing was written again');
  });
});
