import '../../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { startDemoDms, type DemoDms } from '../../../server/dms/demo/demo-dms.js';
import { startSimulator, type Simulator } from '../../../tools/paperless-sim/simulator.js';

// A bulk edit queues `bulk_update_documents` (documents/tasks.py): "Document Updated" and the `modified` move come
// from that task, after the answer. Tests hold the task to see both sides of that moment.

const bulk = (url: string, token: string, body: unknown) =>
  fetch(`${url}/api/documents/bulk_edit/`, {
    method: 'POST',
    headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('the Celery tasks a bulk edit queues', () => {
  let sim: Simulator | undefined;
  let demo: DemoDms | undefined;
  afterEach(async () => {
    await sim?.close();
    await demo?.close();
    sim = demo = undefined;
  });

  test('/__sim/tasks holds the task; its release moves modified; a document trashed meanwhile is skipped', async () => {
    sim = await startSimulator();
    const control = (method: string, path: string, body?: unknown) =>
      fetch(`${sim!.url}/__sim/${path}`, {
        method,
        headers: { authorization: `Token ${sim!.token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> }));
    assert.equal((await control('PUT', 'tasks', { hold: true })).status, 200);
    const before = [3, 4].map((id) => sim!.store.getDocument(id)!.modified);
    const answer = await bulk(sim.url, sim.token, {
      documents: [3, 4],
      method: 'set_correspondent',
      parameters: { correspondent: 1 },
    });
    assert.equal(answer.status, 200);
    assert.equal(sim.store.getDocument(3)!.correspondent, 1, 'the queryset update is done within the request');
    assert.deepEqual((await control('GET', 'tasks')).body, { pending: ['bulk_update_documents'] });
    assert.deepEqual(
      [3, 4].map((id) => sim!.store.getDocument(id)!.modified),
      before,
    );
    await fetch(`${sim.url}/api/documents/4/`, { method: 'DELETE', headers: { authorization: `Token ${sim.token}` } });
    assert.deepEqual((await control('POST', 'tasks/release')).body, { released: 1 });
    assert.notEqual(sim.store.getDocument(3)!.modified, before[0]);
    assert.equal(sim.store.getDocument(4), undefined, 'in the trash: Document.objects no longer has it');
    assert.deepEqual((await control('GET', 'tasks')).body, { pending: [] });
  });

  test('delayMs spaces the task from the request; webhooksIdle waits for it and its deliveries', async () => {
    sim = await startSimulator({ tasks: { delayMs: 30 } });
    // The simulator's own login redirect is not 2xx: retried with no wait, then dropped.
    sim.setWorkflowWebhook({ url: `${sim.url}/hook/`, shape: 'json', echoDelayMs: 0, retryBaseMs: 0 });
    const before = sim.store.getDocument(6)!.modified;
    await bulk(sim.url, sim.token, {
      documents: [6],
      method: 'modify_tags',
      parameters: { add_tags: [9], remove_tags: [] },
    });
    assert.equal(sim.store.getDocument(6)!.modified, before, 'the task waits its delay');
    assert.deepEqual(sim.pendingTasks(), ['bulk_update_documents']);
    await sim.webhooksIdle();
    assert.notEqual(sim.store.getDocument(6)!.modified, before);
    const stats = sim.webhookStats();
    assert.deepEqual([stats.queued, stats.attempts, stats.failed], [1, 4, 1], 'one delivery, tried four times');
  });

  test('held webhooks: releaseWebhooks runs the due task first, so the bulk edit’s deliveries are among those released', async () => {
    sim = await startSimulator({ tasks: { delayMs: 60_000 } });
    sim.setWorkflowWebhook({ url: `${sim.url}/hook/`, hold: true });
    await bulk(sim.url, sim.token, {
      documents: [6, 7],
      method: 'modify_tags',
      parameters: { add_tags: [9], remove_tags: [] },
    });
    assert.equal(sim.webhookStats().queued, 0);
    assert.equal(sim.releaseWebhooks(), 2);
    assert.deepEqual(sim.pendingTasks(), []);
  });

  test('the demo dms runs the task right after the answer: the next read sees modified moved', async () => {
    demo = await startDemoDms();
    const before = demo.store.getDocument(6)!.modified;
    await bulk(demo.url, demo.token, { documents: [6], method: 'add_tag', parameters: { tag: 9 } });
    const res = await fetch(`${demo.url}/api/documents/6/`, { headers: { authorization: `Token ${demo.token}` } });
    const doc = (await res.json()) as { modified: string };
    assert.notEqual(doc.modified, before);
  });
});
