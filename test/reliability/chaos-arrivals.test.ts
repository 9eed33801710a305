import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import type { EventRecord } from '../../server/history/event-types.js';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import { arrivalHealth, arrivalsWaiting } from '../helpers/arrivals.js';
import { API_TOKEN, call, startTestServer, tempDir, type TestServer } from '../helpers/test-server.js';
import { until } from './support/chaos-kit.js';

// The arrival scenarios of the chaos suite (docs/jobs-and-webhook.md, "Chaos"): people editing right after the
// service's write, as another user and as the service's own user; edits and notes while the service is down; a job
// beside webhooks with a short outage; a person's delivery while a 10,000-document job runs. Paperless's own
// webhooks (150 ms after each save) reach the real app.
const RULES = `
rules:
  - id: sign
    on: [added, updated]
    when: { not: { title: { ends_with: "✓" } } }
    actions:
      - set_title: "{{ doc.title }} ✓"
  - id: paid
    on: [updated]
    when: { all: [{ notes: { matches: bezahlt } }, { not: { title: { starts_with: "Bezahlt" } } }] }
    actions:
      - set_title: "Bezahlt: {{ doc.title }}"
`;

const counts: string[] = [];

async function start(sim: Simulator, dirs?: { dataDir: string; rulesDir: string }): Promise<TestServer> {
  const rulesDir = dirs?.rulesDir ?? tempDir();
  fs.writeFileSync(path.join(rulesDir, 'chaos.yml'), RULES);
  const server = await startTestServer(
    { SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token },
    { rulesDir, ...(dirs ? { dataDir: dirs.dataDir } : {}) },
  );
  sim.setWorkflowWebhook({
    url: `${server.url}/api/webhook/dms`,
    headers: { Authorization: `Bearer ${API_TOKEN}` },
    echoDelayMs: 150,
    retryBaseMs: 20,
    retryJitter: false,
    workers: 2,
  });
  return server;
}

/** Nothing left in Paperless's webhook queue or in the service, twice in a row. */
async function settled(sim: Simulator, server: TestServer): Promise<void> {
  let quiet = 0;
  await until(
    async () => {
      await sim.webhooksIdle();
      quiet = (await arrivalsWaiting(server.url)) === 0 ? quiet + 1 : 0;
      return quiet;
    },
    (n) => n >= 2,
    'arrivals to settle',
  );
}

const title = (sim: Simulator, id: number) => sim.store.getDocument(id)?.title ?? '';

describe('chaos: arrivals', () => {
  after(() => console.log(`chaos arrivals: ${counts.join('; ')}`));

  test("a person's edit right after the service's write, as another user or as the service's own user, runs the rules", async () => {
    const sim = await startSimulator({ seedDocuments: false });
    const server = await start(sim);
    try {
      const docs = Array.from({ length: 12 }, (_, i) => sim.addDocument({ title: `Scan ${i}`, content: 'Brief' }).id);
      for (const [i, id] of docs.entries()) {
        await until(
          () => title(sim, id),
          (t) => t.endsWith('✓'),
          `the service's write of document ${id}`,
        );
        // At once, while Paperless's webhook for the service's write is still 150 ms away.
        sim.editAs(id, { title: `Rechnung ${i}` }, i % 2 === 0 ? 'ben' : 'anna');
      }
      await settled(sim, server);
      const missed = docs.filter((id, i) => title(sim, id) !== `Rechnung ${i} ✓`);
      counts.push(`person edits: ${docs.length} (half as the service's user), ${missed.length} missed`);
      assert.deepEqual(
        missed.map((id) => [id, title(sim, id)]),
        [],
        "every person's edit ran the rules",
      );
    } finally {
      await server.close();
      await sim.close();
    }
  });

  test("edits and notes made while the service is down run after its start, a person's note included", async () => {
    const sim = await startSimulator({ seedDocuments: false });
    const dirs = { dataDir: tempDir(), rulesDir: tempDir() };
    let server = await start(sim, dirs);
    try {
      const [a, b, c] = ['Vertrag', 'Rechnung', 'Quittung'].map((t) => sim.addDocument({ title: t }).id);
      await until(
        () => [a, b, c].map((id) => title(sim, id)),
        (titles) => titles.every((t) => t.endsWith('✓')),
        'the new documents to be handled',
      );
      await settled(sim, server);
      await server.close();
      sim.editAs(a, { title: 'Mietvertrag' }, 'ben');
      // Notes fire no webhook in Paperless: only the audit log (or the state) shows them.
      sim.addNoteAs(b, 'bezahlt am 3. März', 'ben');
      sim.addNoteAs(c, 'bezahlt per Karte', 'anna');
      server = await start(sim, dirs);
      await until(
        () => [a, b, c].map((id) => title(sim, id)),
        ([ta, tb, tc]) => ta === 'Mietvertrag ✓' && tb.startsWith('Bezahlt') && tc.startsWith('Bezahlt'),
        'the changes made while down to run',
      );
      await settled(sim, server);
      counts.push('while down: 1 edit and 2 notes (one as the service user), 0 missed');
    } finally {
      await server.close();
      await sim.close();
    }
  });

  test('a job beside webhooks for the same documents, through a short outage: every document signed once', async () => {
    const sim = await startSimulator({ seedDocuments: false, generate: { count: 40, seed: 9 } });
    const server = await start(sim);
    try {
      const ids = [...sim.store.documents.keys()];
      const job = await call<{ event_id: number }>(server.url, '/api/run?rule_id=sign&dry_run=false', {
        method: 'POST',
        token: API_TOKEN,
      });
      assert.equal(job.status, 200, JSON.stringify(job.body));
      // The dms fails reads for a while (a restart): the client's retries and the delivery's backoff outlast it.
      const outage = sim.faults.inject({ route: 'GET /api/documents/{id}/', kind: 'status', status: 502, times: 12 });
      const edited = ids.filter((_, i) => i % 4 === 0);
      for (const id of edited) sim.editAs(id, { title: `Akte ${id}` }, 'ben');
      const done = await until(
        async () =>
          (await call<EventRecord>(server.url, `/api/events/${job.body.event_id}`, { token: API_TOKEN })).body,
        (e) => e.status === 'done' || e.status === 'failed',
        'the job to end',
      );
      assert.equal(done.status, 'done', JSON.stringify(done));
      await settled(sim, server);
      const wrong = ids.filter((id) => {
        const t = title(sim, id);
        return !t.endsWith(' ✓') || t.endsWith('✓ ✓') || (edited.includes(id) && t !== `Akte ${id} ✓`);
      });
      counts.push(
        `job beside webhooks: ${ids.length} documents, ${edited.length} edited during the job, ${outage.hits} failed reads, ${wrong.length} wrong`,
      );
      assert.ok(outage.hits > 0, 'the outage hit reads');
      assert.deepEqual(
        wrong.map((id) => [id, title(sim, id)]),
        [],
      );
      assert.deepEqual((await arrivalHealth(server.url)).failed_documents, [], 'nothing left failed');
    } finally {
      await server.close();
      await sim.close();
    }
  });

  test("a person's delivery during a 10,000-document job is accepted (202) and runs", async () => {
    const sim = await startSimulator({ seedDocuments: false, generate: { count: 10_000, seed: 4 } });
    const server = await start(sim);
    try {
      // The job's page reads wait: it stays running over its 10,000 documents, and costs nothing meanwhile.
      const pages = sim.faults.inject({ route: 'GET /api/documents/', kind: 'hold' });
      const job = await call<{ event_id: number }>(server.url, '/api/run?rule_id=sign&dry_run=true', {
        method: 'POST',
        token: API_TOKEN,
      });
      assert.equal(job.status, 200, JSON.stringify(job.body));
      await until(
        () => pages.hits,
        (hits) => hits > 0,
        'the job to read',
      );
      const doc = 5000;
      sim.editAs(doc, { title: 'Kündigung' }, 'ben');
      await until(
        () => title(sim, doc),
        (t) => t === 'Kündigung ✓',
        "the person's delivery to run",
      );
      const stats = sim.webhookStats();
      counts.push(`10,000-document job: person's delivery ${stats.delivered} accepted, ${stats.failed} refused`);
      assert.equal(stats.failed, 0, 'no delivery refused');
      const running = await call<EventRecord>(server.url, `/api/events/${job.body.event_id}`, { token: API_TOKEN });
      assert.equal(running.body.status, 'running', 'the job was still running');
      await call(server.url, `/api/events/${job.body.event_id}/cancel`, { method: 'POST', token: API_TOKEN });
      sim.faults.remove(pages.id);
      sim.faults.release(pages.id);
    } finally {
      await server.close();
      await sim.close();
    }
  });
});
