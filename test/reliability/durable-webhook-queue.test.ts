import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import type { EventRecord } from '../../server/history/event-types.js';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { API_TOKEN, call, tempDir } from '../helpers/test-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const DOCS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const BANG =
  'rules:\n  - id: bang\n    on: [updated]\n    when: { title: { contains: "" } }\n    actions:\n      - set_title: "{{ doc.title }}!"\n';
const NOTE =
  'rules:\n  - id: checked\n    on: [added, updated]\n    when: { title: { contains: "" } }\n    actions:\n      - add_note: "geprüft"\n';

/** Posts a webhook delivery per document and answers the accepted event ids (each must be a 202). */
/** Waits for each accepted delivery to run after a restart: none lost, none dropped as interrupted. */
async function waitForDeliveries(url: string, ids: number[]): Promise<void> {
  for (const id of ids) {
    for (let i = 0; i < 400; i++) {
      const event = await call<EventRecord>(url, `/api/events/${id}`, { token: API_TOKEN });
      assert.equal(event.status, 200, `event ${id} survived the crash`);
      if (event.body.status === 'done') break;
      assert.notEqual(event.body.status, 'interrupted', 'an accepted delivery is not dropped as interrupted');
      await sleep(50);
    }
  }
}

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
  // These two share one dms, one data dir and one process between them: the service restarted after the first
  // kill -9 (and checked) takes the second case's deliveries to its own kill -9. A child boot is a whole import of
  // the service. Both rule files are there from the start: the new documents arrive as "added" (the title rule
  // runs on "updated" only), and the second case asserts titles, the first notes, of different documents.
  describe('one service killed twice', () => {
    let sim: Simulator;
    let dirs: Record<string, string>;
    let server: ChildServer | undefined;
    before(async () => {
      sim = await startSimulator();
      dirs = { SVC_DATA_DIR: tempDir(), SVC_RULES_DIR: tempDir(), SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token };
      // Not idempotent: a second run of one delivery would show as a second "!" or a second note.
      fs.writeFileSync(path.join(dirs.SVC_RULES_DIR, 'bang.yml'), BANG);
      fs.writeFileSync(path.join(dirs.SVC_RULES_DIR, 'note.yml'), NOTE);
    });
    after(async () => {
      await server?.kill();
      await sim.close();
    });

    test("kill -9 with deliveries queued for new documents that the restart's catch-up finds too: one run, one note each", async () => {
      const first = await startChildServer(dirs);
      server = first;
      // The first start sets the catch-up cursor; documents added after it are "new since the cursor" at the restart.
      for (let i = 0; i < 400; i++) {
        const health = await call<{ arrival: { cursor: string | null } }>(first.url, '/api/health', {
          token: API_TOKEN,
        });
        if (health.body.arrival?.cursor) break;
        await sleep(25);
      }
      const slow = sim.faults.inject({ route: 'GET /api/documents/{id}/', kind: 'latency', ms: 5000 });
      const added = [1, 2, 3, 4].map(() => sim.addDocument({ title: 'Neue Rechnung', content: 'Rechnung' }).id);
      const accepted = await deliverAll(first.url, added, 'document_added');
      await first.kill('SIGKILL');
      sim.faults.remove(slow.id);

      const restarted = await startChildServer(dirs);
      server = restarted;
      await waitForDeliveries(restarted.url, accepted);
      let catchUp: EventRecord | undefined;
      for (let i = 0; i < 400 && catchUp?.status !== 'done'; i++) {
        const list = await call<{ events: EventRecord[] }>(restarted.url, '/api/events?kind=catchup', {
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
    });

    test('kill -9 with accepted webhooks queued: after the restart every one runs, once', async () => {
      // Every fetch of a document is slow, so the accepted deliveries are still queued when the service dies.
      const slow = sim.faults.inject({ route: 'GET /api/documents/{id}/', kind: 'latency', ms: 5000 });
      const titles = new Map(DOCS.map((id) => [id, sim.store.getDocument(id)?.title]));
      const first = server ?? (await startChildServer(dirs));
      const accepted = await deliverAll(first.url, DOCS);
      await first.kill('SIGKILL');
      sim.faults.remove(slow.id);

      const restarted = await startChildServer(dirs);
      server = restarted;
      await waitForDeliveries(restarted.url, accepted);
      for (const id of DOCS)
        assert.equal(sim.store.getDocument(id)?.title, `${titles.get(id)}!`, `document ${id} ran exactly once`);
    });
  });

  test('kill -9, then a journal torn mid-record and garbled in the middle: every intact delivery still runs, once', async () => {
    const sim = await startSimulator();
    const slow = sim.faults.inject({ route: 'GET /api/documents/{id}/', kind: 'latency', ms: 5000 });
    const dirs = { SVC_DATA_DIR: tempDir(), SVC_RULES_DIR: tempDir(), SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token };
    fs.writeFileSync(path.join(dirs.SVC_RULES_DIR, 'bang.yml'), BANG);
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
