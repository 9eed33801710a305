import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { startSimulator } from '../../tools/paperless-sim/simulator.js';
import type { EventRecord } from '../../server/history/event-types.js';
import { startChildServer } from '../helpers/child-server.js';
import { API_TOKEN, call, tempDir } from '../helpers/test-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const DOCS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

/** Posts a webhook delivery per document and answers the accepted event ids (each must be a 202). */
async function deliverAll(url: string, documents: number[], event = 'document_updated'): Promise<number[]> {
  const accepted: number[] = [];
  for (const id of documents) {
    const res = await call<{ event_id: number }>(url, '/api/webhook/dms', {
      token: API_TOKEN,
      body: { event, doc_id: String(id) },
    });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    accepted.push(res.body.event_id);
  }
  return accepted;
}

describe('the durable webhook queue', () => {
  test('kill -9 with accepted webhooks queued: after the restart every one runs, once', async () => {
    const sim = await startSimulator();
    // Every fetch of a document is slow, so the accepted deliveries are still queued when the service dies.
    const slow = sim.faults.inject({ route: 'GET /api/documents/{id}/', kind: 'latency', ms: 5000 });
    const dirs = { SVC_DATA_DIR: tempDir(), SVC_RULES_DIR: tempDir(), SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token };
    // Not idempotent: a second run of one delivery would show as a second "!".
    fs.writeFileSync(
      path.join(dirs.SVC_RULES_DIR, 'bang.yml'),
      'rules:\n  - id: bang\n    on: [updated]\n    when: { title: { contains: "" } }\n    actions:\n      - set_title: "{{ doc.title }}!"\n',
    );
    const titles = new Map(DOCS.map((id) => [id, sim.store.getDocument(id)?.title]));
    let server = await startChildServer(dirs);
    try {
      const accepted = await deliverAll(server.url, DOCS);
      await server.kill('SIGKILL');
      sim.faults.remove(slow.id);

      server = await startChildServer(dirs);
      for (const id of accepted) {
        for (let i = 0; i < 400; i++) {
          const event = await call<EventRecord>(server.url, `/api/events/${id}`, { token: API_TOKEN });
          assert.equal(event.status, 200, `event ${id} survived the crash`);
          if (event.body.status === 'done') break;
          assert.notEqual(event.body.status, 'interrupted', 'an accepted delivery is not dropped as interrupted');
          await sleep(50);
        }
      }
      for (const id of DOCS)
        assert.equal(sim.store.getDocument(id)?.title, `${titles.get(id)}!`, `document ${id} ran exactly once`);
    } finally {
      await server.kill();
      await sim.close();
    }
  });

  test("kill -9 with deliveries queued for new documents that the restart's catch-up finds too: one run, one note each", async () => {
    const sim = await startSimulator();
    const dirs = { SVC_DATA_DIR: tempDir(), SVC_RULES_DIR: tempDir(), SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token };
    // A note is not idempotent by state: a second run of one change would be a second note.
    fs.writeFileSync(
      path.join(dirs.SVC_RULES_DIR, 'note.yml'),
      'rules:\n  - id: checked\n    on: [added, updated]\n    when: { title: { contains: "" } }\n    actions:\n      - add_note: "geprüft"\n',
    );
    let server = await startChildServer(dirs);
    try {
      // The first start sets the catch-up cursor; documents added after it are "new since the cursor" at the restart.
      for (let i = 0; i < 400; i++) {
        const health = await call<{ arrival: { cursor: string | null } }>(server.url, '/api/health', {
          token: API_TOKEN,
        });
        if (health.body.arrival?.cursor) break;
        await sleep(25);
      }
      const slow = sim.faults.inject({ route: 'GET /api/documents/{id}/', kind: 'latency', ms: 5000 });
      const added = [1, 2, 3, 4].map(() => sim.addDocument({ title: 'Neue Rechnung', content: 'Rechnung' }).id);
      const accepted = await deliverAll(server.url, added, 'document_added');
      await server.kill('SIGKILL');
      sim.faults.remove(slow.id);

      server = await startChildServer(dirs);
      for (const id of accepted) {
        for (let i = 0; i < 400; i++) {
          const event = await call<EventRecord>(server.url, `/api/events/${id}`, { token: API_TOKEN });
          if (event.body.status === 'done') break;
          await sleep(50);
        }
      }
      let catchUp: EventRecord | undefined;
      for (let i = 0; i < 400 && catchUp?.status !== 'done'; i++) {
        const list = await call<{ events: EventRecord[] }>(server.url, '/api/events?kind=catchup', {
          token: API_TOKEN,
        });
        catchUp = list.body.events[0];
        if (catchUp?.status !== 'done') await sleep(50);
      }
      assert.equal(catchUp?.status, 'done', 'the restart ran a catch-up');
      const found = catchUp?.catchup;
      assert.equal(
        (found?.merged ?? 0) + (found?.skipped ?? 0),
        added.length,
        `catch-up left every new document to its queued delivery or found it handled: ${JSON.stringify(found)}`,
      );
      for (const id of added)
        assert.deepEqual(
          sim.store.getDocument(id)?.notes.map((n) => n.note),
          ['geprüft'],
          `document ${id}: one run, one note`,
        );
    } finally {
      await server.kill();
      await sim.close();
    }
  });

  test('kill -9, then a journal torn mid-record and garbled in the middle: every intact delivery still runs, once', async () => {
    const sim = await startSimulator();
    const slow = sim.faults.inject({ route: 'GET /api/documents/{id}/', kind: 'latency', ms: 5000 });
    const dirs = { SVC_DATA_DIR: tempDir(), SVC_RULES_DIR: tempDir(), SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token };
    fs.writeFileSync(
      path.join(dirs.SVC_RULES_DIR, 'bang.yml'),
      'rules:\n  - id: bang\n    on: [updated]\n    when: { title: { contains: "" } }\n    actions:\n      - set_title: "{{ doc.title }}!"\n',
    );
    const titles = new Map(DOCS.map((id) => [id, sim.store.getDocument(id)?.title]));
    let server = await startChildServer(dirs);
    try {
      const accepted = new Map<number, number>();
      for (const id of DOCS) {
        const res = await call<{ event_id: number }>(server.url, '/api/webhook/dms', {
          token: API_TOKEN,
          body: { event: 'document_updated', doc_id: String(id) },
        });
        assert.equal(res.status, 202, JSON.stringify(res.body));
        accepted.set(id, res.body.event_id);
      }
      await server.kill('SIGKILL');
      sim.faults.remove(slow.id);

      // Damage the journal as a power cut (the last record half written) and a bad sector (one line garbled) would.
      const journal = path.join(dirs.SVC_DATA_DIR, 'events.jsonl');
      const rows = fs.readFileSync(journal, 'utf8').split('\n');
      const lineOf = (doc: number) => rows.findIndex((l) => l.includes(`"event_id":${accepted.get(doc)},`));
      rows[lineOf(5)] = `${rows[lineOf(5)].slice(0, 25)}#%$${rows[lineOf(5)].slice(40)}`;
      const torn = lineOf(10);
      rows[torn] = rows[torn].slice(0, Math.floor(rows[torn].length / 2));
      fs.writeFileSync(journal, rows.slice(0, torn + 1).join('\n'));

      server = await startChildServer(dirs);
      const intact = DOCS.filter((d) => d !== 5 && d !== 10);
      for (const doc of intact) {
        const id = accepted.get(doc) as number;
        for (let i = 0; i < 400; i++) {
          const event = await call<EventRecord>(server.url, `/api/events/${id}`, { token: API_TOKEN });
          assert.equal(event.status, 200, `event ${id} survived the damage`);
          if (event.body.status === 'done') break;
          await sleep(50);
        }
      }
      await server.kill('SIGTERM');
      for (const doc of intact)
        assert.equal(sim.store.getDocument(doc)?.title, `${titles.get(doc)}!`, `document ${doc} ran exactly once`);
      for (const doc of [5, 10])
        assert.equal(sim.store.getDocument(doc)?.title, titles.get(doc), `the damaged delivery for ${doc} is not run`);
      assert.match(
        server.output(),
        /events journal: \d+ records kept, 2 unreadable lines \(line \d+, \d+; the last one torn\) moved aside to \S+events\.jsonl\.corrupt-/,
      );
    } finally {
      await server.kill();
      await sim.close();
    }
  });
});
