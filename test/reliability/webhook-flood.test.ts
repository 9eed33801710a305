import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { startSimulator } from '../../tools/paperless-sim/simulator.js';
import { arrivalsSettled, arrivalsWaiting } from '../helpers/arrivals.js';
import { API_TOKEN, call, startTestServer, tempDir } from '../helpers/test-server.js';

test('a webhook flood of more documents than ever waited before: every delivery is accepted (202) and runs', async () => {
  // 260 documents: beyond the 200 waiting documents a bounded queue used to hold before it answered 503.
  const sim = await startSimulator({ seedDocuments: false, generate: { count: 260, seed: 5 } });
  const rulesDir = tempDir();
  fs.writeFileSync(
    path.join(rulesDir, 'flood.yml'),
    'rules:\n  - id: flood\n    when:\n      content: { matches: "(?i)rechnung|invoice" }\n    actions:\n      - add_tags: [Steuer]\n',
  );
  const server = await startTestServer(
    { SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token, SVC_WEBHOOK_DRY_RUN: 'true' },
    { rulesDir },
  );
  try {
    // Runs cannot finish during the flood (their document reads are held), so every delivery waits at once.
    const held = sim.faults.inject({ route: /^GET \/api\/documents\/(\d+\/)?$/, kind: 'hold' });
    const ids = [...sim.store.documents.keys()];
    const accepted = new Map<number, number>();
    const otherStatuses: number[] = [];
    for (let i = 0; i < ids.length; i += 30) {
      await Promise.all(
        ids.slice(i, i + 30).map(async (doc) => {
          const res = await call<{ event_id: number }>(server.url, '/api/webhook/dms', {
            body: { event: 'document_updated', doc_id: String(doc) },
            token: API_TOKEN,
          });
          if (res.status === 202) accepted.set(doc, res.body.event_id);
          else otherStatuses.push(res.status);
        }),
      );
    }
    assert.deepEqual(otherStatuses, [], 'every delivery is answered 202');
    assert.equal(accepted.size, ids.length);
    assert.equal(await arrivalsWaiting(server.url), ids.length, 'every document waits once');
    sim.faults.release(held.id);

    await arrivalsSettled(server.url);
    for (const [doc, eventId] of accepted) {
      const event = await call<{ status: string; document: number }>(server.url, `/api/events/${eventId}`, {
        token: API_TOKEN,
      });
      assert.equal(event.body.status, 'done', `event ${eventId} for document ${doc}: ${JSON.stringify(event.body)}`);
      assert.equal(event.body.document, doc);
    }
    const traces = await call<{ traces: Array<{ document: number; source: string }> }>(
      server.url,
      '/api/traces?limit=1000',
      { token: API_TOKEN },
    );
    const traced = new Set(traces.body.traces.filter((t) => t.source === 'webhook').map((t) => t.document));
    for (const doc of accepted.keys()) assert.ok(traced.has(doc), `accepted document ${doc} has a webhook trace`);
  } finally {
    await server.close();
    await sim.close();
  }
});
