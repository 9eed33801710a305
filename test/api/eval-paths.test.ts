import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import type { Trace } from '../../server/engine/engine.js';
import { API_TOKEN, call, startTestServer, tempDir, type TestServer } from '../helpers/test-server.js';
import { startJob, waitForEvent } from './support/jobs-kit.js';

// The worker pool gets each document's text beside the batch's JSON (server/eval/eval-protocol.ts) and puts it
// back; the main thread evaluates the parsed documents themselves. Both must say the same.
const RULES = `rules:
  - id: invoices
    when:
      content: { matches: '(?i)rechnung|invoice' }
    extract:
      total: { regex: ['Rechnungsbetrag:\\s*([\\d.,]+)', 'Total:\\s*USD\\s*([\\d.,]+)'], type: money }
    actions:
      - add_tags: [paths-invoice]
        create_missing: true
  - id: content-in-title
    when:
      any:
        - content: { contains: 'ß' }
        - content: { matches: '🧾|\\\\|"' }
        - tags: { any: [paths-none] }
    actions:
      - set_title: '{{ doc.id }} {{ doc.content | slice: 0, 24 }} {{ doc.content | size }}'
`;

/** Documents whose content takes each road: escapes, characters beyond Latin-1 and the BMP, and one over the limit. */
const SPECIAL = [
  'Rechnung mit "Anführungszeichen" und \\ Backslash\nRechnungsbetrag: 1.234,56',
  'Straße 🧾 Beleg\u2028Zeilentrenner\u0000 nach einem NUL',
  `Invoice ${'x'.repeat(1_100_000)} Total: USD 12.50`,
  '',
];

const without = ({ id: _id, at: _at, duration_ms: _d, event_id: _e, ...rest }: Trace) => rest;

/** A dry job of each rule, one after the other; their traces in document order. */
async function tracesOfJobs(server: TestServer): Promise<Array<ReturnType<typeof without>>> {
  const traces: Trace[] = [];
  for (const rule of ['invoices', 'content-in-title']) {
    const started = await startJob(server.url, `rule_id=${rule}`);
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const event = await waitForEvent(server.url, started.body.event_id as number);
    assert.equal(event.status, 'done', JSON.stringify(event));
    const res = await call<{ traces: Trace[] }>(server.url, `/api/traces?event_id=${event.event_id}&limit=1000`, {
      token: API_TOKEN,
    });
    traces.push(...res.body.traces);
  }
  return traces.map(without).sort((a, b) => a.document - b.document || a.rule_id.localeCompare(b.rule_id));
}

describe('a job gives the same traces with the worker pool and on the main thread', () => {
  let sim: Simulator;
  const servers: TestServer[] = [];

  before(async () => {
    sim = await startSimulator({ generate: { count: 300, seed: 11, realistic: true } });
    for (const content of SPECIAL) sim.addDocument({ title: 'special', content });
  });
  after(async () => {
    for (const server of servers) await server.close();
    await sim?.close();
  });

  it('realistic documents, escapes, astral characters and a cut content: identical traces on both paths', async () => {
    const traces: Array<Array<ReturnType<typeof without>>> = [];
    for (const workers of ['0', '1']) {
      const rulesDir = tempDir('dms-rules-eval-paths-');
      fs.writeFileSync(path.join(rulesDir, 'paths.yml'), RULES);
      const server = await startTestServer(
        { SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token, SVC_EVAL_WORKERS: workers },
        { rulesDir },
      );
      servers.push(server);
      traces.push(await tracesOfJobs(server));
    }
    const [onMain, inPool] = traces;
    assert.equal(onMain.length, sim.store.documents.size * 2);
    assert.deepEqual(inPool, onMain);
    // The rules did read the content: invoices matched, and the special documents' titles quote it.
    assert.ok(onMain.filter((t) => t.rule_id === 'invoices' && t.status === 'matched').length > 50);
    const titled = onMain.filter((t) => t.rule_id === 'content-in-title' && t.status === 'matched');
    assert.ok(
      titled.some((t) => String(t.changes.title?.to).includes('🧾')),
      JSON.stringify(titled.slice(0, 3)),
    );
    const cut = onMain.find((t) => t.rule_id === 'invoices' && t.conditions[0]?.description.startsWith('content cut'));
    assert.ok(cut, 'the long document was cut to the content limit');
  });
});
