import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { startSimulator } from '../../server/dms/simulator/simulator.js';
import type { EventRecord } from '../../server/history/event-types.js';
import { startChildServer } from '../helpers/child-server.js';
import { API_TOKEN, call, tempDir } from '../helpers/test-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const DOCS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

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
      const accepted: number[] = [];
      for (const id of DOCS) {
        const res = await call<{ event_id: number }>(server.url, '/api/webhook/dms', { token: API_TOKEN, body: { event: 'document_updated', doc_id: String(id) } });
        assert.equal(res.status, 202, JSON.stringify(res.body));
        accepted.push(res.body.event_id);
      }
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
      for (const id of DOCS) assert.equal(sim.store.getDocument(id)?.title, `${titles.get(id)}!`, `document ${id} ran exactly once`);
    } finally {
      await server.kill();
      await sim.close();
    }
  });
});
