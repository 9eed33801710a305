import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { DmsDocument } from '../../server/dms/types.js';
import { createMemoryLogger } from '../../server/log.js';
import { readValuesOf } from '../../server/runs/journal/journal-records.js';
import { openWriteJournal } from '../../server/runs/journal/write-journal.js';
import { startSimulator } from '../../tools/paperless-sim/simulator.js';
import { heldAtDms } from '../helpers/arrivals.js';
import { API_TOKEN, call, startTestServer, tempDir } from '../helpers/test-server.js';
import { waitForEvent } from './support/jobs-kit.js';

const RULES = `rules:
  - id: tag-all
    actions:
      - add_tags: [Steuer]
`;

// A list of documents read by the job (the service's start probes the list with `id__in=0`).
const isPageRead = (request: string) => request.startsWith('GET /api/documents/?') && !request.includes('id__in=0');

describe("the start's reconciliation of the write journal", () => {
  it('is waited for by a job started meanwhile: its pages are read only once the cut-short document was', async () => {
    const sim = await startSimulator({ seedDocuments: true });
    const dataDir = tempDir();
    const rulesDir = tempDir();
    fs.writeFileSync(path.join(rulesDir, 'rules.yml'), RULES);
    // A run a kill cut short: begun, its write sent, no answer recorded.
    const journal = openWriteJournal({ file: path.join(dataDir, 'write-journal.jsonl'), logger: createMemoryLogger() });
    const doc = sim.store.getDocument(5) as unknown as DmsDocument;
    await journal.begin([
      {
        dms: sim.url,
        doc: 5,
        event: 1,
        source: 'webhook',
        rules: ['tag-all'],
        read: readValuesOf(doc),
        writes: [{ kind: 'patch', patch: { title: `${doc.title} (checked)` } }],
      },
    ]);
    await journal.close();
    // The reconciliation's read of the document waits at the dms until the test lets it go.
    const held = sim.faults.inject({ route: 'GET /api/documents/5/', kind: 'hold', times: 1 });
    const server = await startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token }, { dataDir, rulesDir });
    try {
      await heldAtDms(held, 1);
      const started = await call<{ event_id: number }>(server.url, '/api/run?rule_id=tag-all&dry_run=true', {
        method: 'POST',
        token: API_TOKEN,
      });
      assert.equal(started.status, 200, JSON.stringify(started.body));
      await waitForEvent(server.url, started.body.event_id, (e) => e.status === 'running');
      assert.deepEqual(sim.requests().filter(isPageRead), [], 'no page read while the reconciliation runs');
      sim.faults.release(held.id);
      const done = await waitForEvent(server.url, started.body.event_id);
      assert.equal(done.status, 'done', JSON.stringify(done));
      const times = sim.requestTimes();
      const reconciled = times.find((t) => t.request.startsWith('GET /api/documents/5/'))!;
      const firstPage = times.find((t) => isPageRead(t.request))!;
      assert.ok(firstPage.arrived >= reconciled.answered, JSON.stringify({ reconciled, firstPage }));
      assert.ok(
        server.logs.some((l) => /write journal: 0 interrupted write\(s\) were found applied, 1 not applied/.test(l)),
      );
    } finally {
      await server.close();
      await sim.close();
    }
  });
});
