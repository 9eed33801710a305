import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import { trashedDocuments } from '../../server/dms/demo/trash.js';
import type { Trace } from '../../server/engine/model.js';
import { API_TOKEN, call, type TestServer } from '../helpers/test-server.js';
import { startJob, waitForEvent } from './support/jobs-kit.js';
import { runReal, serverWithRules } from './support/real-run-kit.js';

// move_to_trash through the real app, the real client and the simulator's Paperless trash.

const RULES = `
rules:
  - id: trash-drafts
    when: { title: { starts_with: Entwurf } }
    actions:
      - set_title: "Verworfen: {{ doc.title }}"
      - move_to_trash: true
`;

const inDms = async (sim: Simulator, id: number) =>
  (await fetch(`${sim.url}/api/documents/${id}/`, { headers: { authorization: `Token ${sim.token}` } })).status;

describe('move_to_trash', () => {
  let sim: Simulator;
  let server: TestServer;
  before(async () => {
    sim = await startSimulator();
    for (const id of [2, 3, 4]) sim.store.getDocument(id)!.title = `Entwurf ${id}`;
    server = await serverWithRules(sim, sim.token, RULES);
  });
  after(async () => {
    await server?.close();
    await sim?.close();
  });

  it('a dry run reports the move and leaves the document where it is', async () => {
    const res = await call<{ traces: Trace[] }>(server.url, '/api/run?document=2&dry_run=true', {
      method: 'POST',
      token: API_TOKEN,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const trace = res.body.traces[0];
    assert.deepEqual(trace.changes.trash, { from: false, to: true });
    assert.equal(trace.actions[1].status, 'planned');
    assert.match(trace.actions[1].detail ?? '', /moves the document to the dms's trash/);
    assert.equal(await inDms(sim, 2), 200);
  });

  it('a real run writes the title first, then moves the document to the trash', async () => {
    const res = await runReal(server, 2);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.traces[0].actions.map((a) => a.status),
      ['applied', 'applied'],
    );
    assert.equal(await inDms(sim, 2), 404);
    const trashed = trashedDocuments(sim.store).find((d) => d.id === 2);
    assert.equal(trashed?.title, 'Verworfen: Entwurf 2');
  });

  it('a job moves the matching documents to the trash, and undoing it brings them back as they were', async () => {
    const job = await waitForEvent(
      server.url,
      (await startJob(server.url, 'rule_id=trash-drafts&dry_run=false')).body.event_id as number,
    );
    assert.equal(job.status, 'done', JSON.stringify(job));
    assert.equal(job.errors, 0, JSON.stringify(job));
    assert.equal(job.changed, 2);
    assert.equal(await inDms(sim, 3), 404);
    assert.equal(await inDms(sim, 4), 404);

    const dry = await call<{ event_id: number }>(server.url, `/api/events/${job.event_id}/revert?dry_run=true`, {
      method: 'POST',
      token: API_TOKEN,
    });
    assert.equal((await waitForEvent(server.url, dry.body.event_id)).status, 'done');
    assert.equal(await inDms(sim, 3), 404, 'a dry undo restores nothing');

    const undo = await call<{ event_id: number }>(server.url, `/api/events/${job.event_id}/revert?dry_run=false`, {
      method: 'POST',
      token: API_TOKEN,
    });
    const reverted = await waitForEvent(server.url, undo.body.event_id);
    assert.equal(reverted.status, 'done', JSON.stringify(reverted));
    assert.equal(reverted.errors, 0, JSON.stringify(reverted));
    for (const id of [3, 4]) {
      assert.equal(await inDms(sim, id), 200);
      assert.equal(sim.store.getDocument(id)?.title, `Entwurf ${id}`);
    }
    assert.deepEqual(
      trashedDocuments(sim.store).map((d) => d.id),
      [2],
    );
  });
});
