import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import type { Trace } from '../../server/engine/model.js';
import type { EventRecord } from '../../server/history/event-types.js';
import { arrivalHealth, catchUpNow } from '../helpers/arrivals.js';
import { API_TOKEN, call, login, startTestServer, tempDir, type TestServer } from '../helpers/test-server.js';
import { editInDms, waitForEvent } from './support/jobs-kit.js';

const RULES = `
rules:
  - id: on-added
    on: [added]
    when: { title: { contains: "" } }
    actions:
      - add_note: "seen as added"
  - id: on-updated
    on: [updated]
    when: { title: { contains: "" } }
    actions:
      - set_title: "{{ doc.title }}!"
`;

async function tracesFor(url: string, document: number): Promise<Trace[]> {
  return (await call<{ traces: Trace[] }>(url, `/api/traces?document=${document}&limit=100`, { token: API_TOKEN })).body
    .traces;
}

async function catchUps(url: string): Promise<EventRecord[]> {
  return (await call<{ events: EventRecord[] }>(url, '/api/events?kind=catchup', { token: API_TOKEN })).body.events;
}

/** Resolves once health names a catch-up cursor and the clock has moved past it (polled). */
async function untilCursorPassed(url: string): Promise<void> {
  for (;;) {
    const { cursor } = await arrivalHealth(url);
    if (cursor && Date.parse(cursor) < Date.now()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The service started against `sim` with one data dir across restarts. */
function service(
  sim: Simulator,
  dataDir: string,
  rulesDir: string,
  env: Record<string, string> = {},
): Promise<TestServer> {
  return startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token, ...env }, { dataDir, rulesDir });
}

describe('catch-up after downtime', () => {
  it('runs documents added and edited while the service was stopped, each once, with the matching trigger', async () => {
    const sim = await startSimulator();
    const dataDir = tempDir();
    const rulesDir = tempDir();
    fs.writeFileSync(path.join(rulesDir, 'rules.yml'), RULES);
    let server = await service(sim, dataDir, rulesDir);
    try {
      assert.equal(
        (await catchUps(server.url)).length,
        0,
        'the first start sets the cursor to now: no run over the archive',
      );
      await server.close();

      // While the service is down: a person edits document 3 and a new document arrives.
      const title3 = sim.store.getDocument(3)?.title;
      await editInDms(sim, 3, { archive_serial_number: 777 });
      const added = sim.addDocument({ title: 'Scan while away', content: 'Lieferschein' });

      server = await service(sim, dataDir, rulesDir);
      const [first] = await catchUps(server.url);
      assert.ok(first, 'a catch-up event after the start');
      const done = await waitForEvent(server.url, first.event_id);
      assert.equal(done.status, 'done', JSON.stringify(done));
      assert.equal(done.catchup?.added, 1);
      assert.equal(done.catchup?.updated, 1);
      assert.equal(sim.store.getDocument(3)?.title, `${title3}!`, 'the edited document ran the updated rules once');
      assert.equal(sim.store.getDocument(added.id)?.notes.length, 1, 'the new document ran the added rules once');
      const traces = await tracesFor(server.url, 3);
      assert.ok(traces.every((t) => t.source === 'catchup' && t.event_id === first.event_id));
      const health = await call<{ arrival: { last_heard_at: string | null; waiting: number; cursor: string } }>(
        server.url,
        '/api/health',
        {
          cookie: await login(server.url),
        },
      );
      assert.ok(health.body.arrival.last_heard_at, 'health says when the dms was last heard from');
      assert.equal(health.body.arrival.waiting, 0);

      // Another restart: the service's own writes and the handled documents are not run again.
      await server.close();
      server = await service(sim, dataDir, rulesDir);
      const again = (await catchUps(server.url)).find((e) => e.event_id !== first.event_id) as EventRecord;
      const second = await waitForEvent(server.url, again.event_id);
      assert.equal(second.status, 'done');
      assert.equal(second.changed, 0);
      assert.equal(sim.store.getDocument(3)?.title, `${title3}!`);
      assert.equal(sim.store.getDocument(added.id)?.notes.length, 1);
    } finally {
      await server.close();
      await sim.close();
    }
  });

  it('never skips two documents with the same modified time and never runs one twice', async () => {
    const sim = await startSimulator();
    const rulesDir = tempDir();
    fs.writeFileSync(path.join(rulesDir, 'rules.yml'), RULES);
    const server = await service(sim, tempDir(), rulesDir, { SVC_CATCH_UP_FROM: '2000-01-01' });
    try {
      await catchUpNow(server);
      const same = '2030-05-05T10:00:00.000000+00:00';
      const a = sim.store.getDocument(4);
      const b = sim.store.getDocument(5);
      assert.ok(a && b);
      a.title = 'Alpha';
      b.title = 'Beta';
      a.modified = same;
      b.modified = same;
      const first = await catchUpNow(server);
      assert.equal(first?.status, 'done', JSON.stringify(first));
      assert.equal(sim.store.getDocument(4)?.title, 'Alpha!');
      assert.equal(sim.store.getDocument(5)?.title, 'Beta!');
      // The service's own writes moved `modified`; put both back on the very same instant, then change only B.
      for (const d of [sim.store.getDocument(4), sim.store.getDocument(5)]) if (d) d.modified = same;
      const second = await catchUpNow(server);
      assert.equal(second?.changed, 0, JSON.stringify(second));
      const b2 = sim.store.getDocument(5);
      if (b2) b2.title = 'Beta again';
      const third = await catchUpNow(server);
      assert.equal(third?.changed, 1, JSON.stringify(third));
      assert.equal(sim.store.getDocument(4)?.title, 'Alpha!', 'A was not run twice');
      assert.equal(sim.store.getDocument(5)?.title, 'Beta again!', 'B at the same instant was not skipped');
    } finally {
      await server.close();
      await sim.close();
    }
  });

  it('polling alone (no webhook) picks up a new document within one interval', async () => {
    const sim = await startSimulator();
    const rulesDir = tempDir();
    fs.writeFileSync(path.join(rulesDir, 'rules.yml'), RULES);
    // A fraction of a minute so the test is short; the setting takes whole minutes.
    const server = await startTestServer(
      { SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token },
      { rulesDir, pollMinutes: 0.01 },
    );
    try {
      // The document is changed after the cursor the first pass set, whatever the clock's resolution.
      await untilCursorPassed(server.url);
      const doc = sim.addDocument({ title: 'Polled', content: 'Rechnung' });
      // The note is in the dms before the catch-up's event records the document (the note's intent is marked done in between).
      const recorded = async () => (await catchUps(server.url)).some((e) => e.catchup?.added === 1);
      for (let i = 0; i < 400 && ((sim.store.getDocument(doc.id)?.notes.length ?? 0) === 0 || !(await recorded())); i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(sim.store.getDocument(doc.id)?.notes.length, 1);
      assert.ok(await recorded());
    } finally {
      await server.close();
      await sim.close();
    }
  });
});

describe('a catch-up that cannot read the dms', () => {
  it('fails visibly, says when it retries, and health shows it', async () => {
    const sim = await startSimulator();
    const server = await service(sim, tempDir(), tempDir(), { SVC_CATCH_UP_FROM: '2000-01-01' });
    try {
      await catchUpNow(server);
      const fault = sim.faults.inject({ route: 'GET /api/documents/', kind: 'status', status: 400 });
      const failed = await catchUpNow(server);
      assert.equal(failed?.status, 'failed');
      assert.match(String(failed?.error), /could not read the dms.*It retries at/s);
      const health = await call<{ arrival: { catch_up_error: string | null; catch_up_retry_at: string | null } }>(
        server.url,
        '/api/health',
        {
          cookie: await login(server.url),
        },
      );
      assert.match(String(health.body.arrival.catch_up_error), /could not read the dms/);
      assert.ok(health.body.arrival.catch_up_retry_at);
      sim.faults.remove(fault.id);
      assert.equal((await catchUpNow(server))?.status, 'done');
      assert.equal((await arrivalHealth(server.url)).catch_up_error, null, 'a success clears the failure');
    } finally {
      await server.close();
      await sim.close();
    }
  });
});
