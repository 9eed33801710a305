import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import type { Trace } from '../../server/engine/model.js';
import {
  API_TOKEN,
  call,
  login,
  startTestServer,
  tempDir,
  type TestServer,
  WITH_EXAMPLES,
} from '../helpers/test-server.js';
import { waitForEvent } from './support/jobs-kit.js';

interface RunBody {
  ok: boolean;
  queued: boolean;
  document: number;
  rule_id: string | null;
  dry_run: boolean;
  traces: Trace[];
  error?: string;
}

const TEST_RULES = `
rules:
  - id: telekom-march
    description: Telekom invoices get a title, a storage path, tags, the amount and a note
    when:
      all:
        - correspondent: Telekom Deutschland GmbH
        - content: { matches: 'Rechnungsbetrag' }
    extract:
      total: { regex: 'Rechnungsbetrag\\s+(?<value>\\d[\\d.]*,\\d{2})', type: money, currency: EUR, required: true }
    actions:
      - set_title: "Telekom {{ total }}"
      - add_tags: [Steuer]
      - remove_tags: [Posteingang]
      - set_storage_path: Finanzen
      - set_custom_fields: { Betrag: "{{ total }}" }
      - add_note: "Betrag {{ total }} erkannt"
  - id: new-tag
    description: Tags REWE receipts with a tag the dms does not have yet
    when: { title: { contains: REWE } }
    actions:
      - add_tags: [Supermarkt]
        create_missing: true
  - id: new-storage-path
    description: Files REWE receipts under a storage path per year, created when missing
    when: { title: { contains: REWE } }
    actions:
      - set_storage_path: "Belege {{ doc.created | date: '%Y' }}"
        create_missing: true
        path: "belege/{{ created_year }}/{{ title }}"
  - id: unknown-tag
    description: Names a tag the dms lacks, without create_missing
    when: { title: { contains: Mietvertrag } }
    actions:
      - set_title: Mietvertrag (geprüft)
      - add_tags: [Gibt-es-nicht]
`;

const patches = (sim: Simulator) => sim.counts()['PATCH /api/documents/{id}/'] ?? 0;
const tagId = (sim: Simulator, name: string) => sim.store.objects.tags.find((t) => t.name === name)?.id;

async function run(server: TestServer, query: string): Promise<{ status: number; body: RunBody }> {
  return call<RunBody>(server.url, `/api/run?${query}`, { method: 'POST', token: API_TOKEN });
}

function dmsEnv(sim: Simulator): Record<string, string> {
  return { SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token };
}

describe('POST /api/run with the example rules on the demo documents', () => {
  let sim: Simulator;
  let server: TestServer;
  before(async () => {
    sim = await startSimulator();
    server = await startTestServer(dmsEnv(sim), {}, WITH_EXAMPLES); // an empty rules dir is seeded with the example rules
  });
  after(async () => {
    await server?.close();
    await sim?.close();
  });

  it('plans the invoice changes in a dry run without writing anything', async () => {
    const before = JSON.stringify(sim.store.getDocument(10));
    sim.resetCounts();
    const res = await run(server, 'document=10');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.ok, true);
    assert.equal(res.body.queued, false);
    assert.equal(res.body.document, 10);
    assert.equal(res.body.rule_id, null);
    assert.equal(res.body.dry_run, true);
    const invoice = res.body.traces.find((t) => t.rule_id === 'invoice-de');
    assert.ok(invoice, `traces: ${res.body.traces.map((t) => t.rule_id).join(', ')}`);
    assert.equal(invoice.status, 'matched');
    assert.equal(invoice.file, 'finance/invoices.yml');
    assert.equal(invoice.source, 'manual');
    assert.equal(invoice.dry_run, true);
    assert.deepEqual(invoice.changes.storage_path, { from: null, to: 'Finanzen' });
    assert.ok(invoice.actions.some((a) => a.action === 'set_storage_path' && a.status === 'planned'));
    assert.ok(invoice.conditions.length > 0 && invoice.conditions.every((c) => typeof c.description === 'string'));
    assert.ok(res.body.traces.every((t) => t.document === 10 && typeof t.id === 'string' && t.at));
    // Every loaded rule has exactly one trace.
    assert.equal(new Set(res.body.traces.map((t) => t.rule_id)).size, res.body.traces.length);
    assert.equal(patches(sim), 0);
    assert.equal(JSON.stringify(sim.store.getDocument(10)), before);
  });

  it('writes the changes with one PATCH in real mode, and nothing on the second run', async () => {
    sim.resetCounts();
    const first = await run(server, 'document=10&dry_run=false');
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.dry_run, false);
    assert.equal(patches(sim), 1);
    const doc = sim.store.getDocument(10);
    assert.ok(doc);
    assert.equal(doc.storage_path, 1);
    const values = Object.fromEntries(doc.custom_fields.map((cf) => [cf.field, cf.value]));
    assert.equal(values[1], 'EUR39.95');
    assert.equal(values[4], 'T-0417-2025-03');
    assert.equal(values[2], '2025-03-20');
    const invoice = first.body.traces.find((t) => t.rule_id === 'invoice-de');
    assert.ok(invoice?.actions.some((a) => a.action === 'set_storage_path' && a.status === 'applied'));

    sim.resetCounts();
    const second = await run(server, 'document=10&dry_run=false');
    assert.equal(second.status, 200);
    assert.equal(patches(sim), 0, 'the second real run must not write');
    assert.ok(
      second.body.traces.every((t) => t.actions.every((a) => a.status !== 'applied' && a.status !== 'planned')),
    );
  });

  it('runs one rule when rule_id is given', async () => {
    const res = await run(server, 'document=1&rule_id=invoice-de');
    assert.equal(res.status, 200);
    assert.equal(res.body.rule_id, 'invoice-de');
    assert.deepEqual(
      res.body.traces.map((t) => t.rule_id),
      ['invoice-de'],
    );
  });

  it('queues one rule over all documents when only rule_id is given', async () => {
    const res = await call<{ ok: boolean; queued: boolean; rule_id: string; dry_run: boolean; event_id: number }>(
      server.url,
      '/api/run?rule_id=receipt-de',
      {
        method: 'POST',
        token: API_TOKEN,
      },
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body).sort(), ['dry_run', 'event_id', 'ok', 'queued', 'rule_id']);
    assert.equal(res.body.queued, true);
    assert.equal(res.body.rule_id, 'receipt-de');
    assert.equal(res.body.dry_run, true);
    assert.ok(Number.isInteger(res.body.event_id));
    await waitForEvent(server.url, res.body.event_id);
    const traces = await call<{ traces: Trace[] }>(server.url, `/api/traces?event_id=${res.body.event_id}&limit=1000`, {
      token: API_TOKEN,
    });
    assert.ok(traces.body.traces.length > 0);
    assert.ok(traces.body.traces.every((t) => t.rule_id === 'receipt-de' && t.source === 'job' && t.dry_run));
    assert.ok(traces.body.traces.some((t) => t.document === 6 && t.status === 'matched'));
    const unknown = await call(server.url, '/api/run?rule_id=nope', { method: 'POST', token: API_TOKEN });
    assert.equal(unknown.status, 404);
  });

  it('records the traces in the history', async () => {
    const res = await call<{ traces: Trace[] }>(server.url, '/api/traces?document=10&rule_id=invoice-de', {
      token: API_TOKEN,
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.traces.length, 3);
    assert.deepEqual(
      res.body.traces.map((t) => t.dry_run),
      [false, false, true],
    );
  });
});

describe('POST /api/run with hand-written rules', () => {
  let sim: Simulator;
  let server: TestServer;
  before(async () => {
    sim = await startSimulator();
    const rulesDir = tempDir('dms-rules-rules-');
    fs.writeFileSync(path.join(rulesDir, 'test.yml'), TEST_RULES);
    server = await startTestServer(dmsEnv(sim), { rulesDir });
  });
  after(async () => {
    await server?.close();
    await sim?.close();
  });

  it('answers 400 for missing or malformed parameters', async () => {
    for (const query of [
      '',
      'dry_run=false',
      'document=abc',
      'document=0',
      'document=-3',
      'document=1&dry_run=maybe',
      'document=1&rule_id=',
    ]) {
      const res = await run(server, query);
      assert.equal(res.status, 400, `${query}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.ok, false);
      assert.equal(typeof res.body.error, 'string');
    }
  });

  it('needs a session or the bearer token', async () => {
    const res = await call(server.url, '/api/run?document=1', { method: 'POST' });
    assert.equal(res.status, 401);
    const cookie = await login(server.url);
    const bySession = await call<RunBody>(server.url, '/api/run?document=1', { method: 'POST', cookie });
    assert.equal(bySession.status, 200);
  });

  it('answers 404 for an unknown rule and for a document the dms does not have', async () => {
    const rule = await run(server, 'document=1&rule_id=no-such-rule');
    assert.equal(rule.status, 404);
    assert.match(rule.body.error ?? '', /no-such-rule/);
    const doc = await run(server, 'document=9999');
    assert.equal(doc.status, 404);
    assert.match(doc.body.error ?? '', /9999/);
  });

  it('applies title, tags, storage path, custom field and note in one PATCH, then is idempotent', async () => {
    sim.resetCounts();
    const res = await run(server, 'document=10&dry_run=false');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const trace = res.body.traces.find((t) => t.rule_id === 'telekom-march');
    assert.equal(trace?.status, 'matched', JSON.stringify(trace));
    assert.ok(
      trace.actions.every((a) => a.status === 'applied'),
      JSON.stringify(trace.actions),
    );
    assert.equal(patches(sim), 1);
    assert.equal(sim.counts()['POST /api/documents/{id}/notes/'], 1);
    const doc = sim.store.getDocument(10);
    assert.ok(doc);
    assert.equal(doc.title, 'Telekom 39.95');
    assert.ok(doc.tags.includes(tagId(sim, 'Steuer') as number));
    assert.ok(!doc.tags.includes(tagId(sim, 'Posteingang') as number));
    assert.equal(doc.storage_path, 1);
    assert.deepEqual(doc.custom_fields, [{ field: 1, value: 'EUR39.95' }]);
    assert.deepEqual(
      doc.notes.map((n) => n.note),
      ['Betrag 39.95 erkannt'],
    );

    sim.resetCounts();
    const again = await run(server, 'document=10&dry_run=false');
    assert.equal(again.status, 200);
    assert.equal(patches(sim), 0);
    assert.equal(sim.counts()['POST /api/documents/{id}/notes/'] ?? 0, 0);
    const second = again.body.traces.find((t) => t.rule_id === 'telekom-march');
    assert.ok(
      second?.actions.every((a) => a.status === 'unchanged'),
      JSON.stringify(second?.actions),
    );
  });

  it('creates a missing tag only where the rule says create_missing', async () => {
    assert.equal(tagId(sim, 'Supermarkt'), undefined);
    const dry = await run(server, 'document=6&rule_id=new-tag');
    assert.equal(dry.body.traces[0].actions[0].status, 'planned');
    assert.equal(tagId(sim, 'Supermarkt'), undefined, 'a dry run creates nothing');

    const res = await run(server, 'document=6&rule_id=new-tag&dry_run=false');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.traces[0].actions[0].status, 'applied');
    const created = tagId(sim, 'Supermarkt');
    assert.ok(created !== undefined);
    assert.ok(sim.store.getDocument(6)?.tags.includes(created));
  });

  it('creates a missing storage path from a templated name, with the path template the action gives', async () => {
    const year = String(sim.store.getDocument(6)?.created).slice(0, 4);
    const res = await run(server, 'document=6&rule_id=new-storage-path&dry_run=false');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.traces[0].actions[0].status, 'applied', JSON.stringify(res.body.traces[0]));
    const created = sim.store.objects.storage_paths.find((p) => p.name === `Belege ${year}`);
    assert.equal(created?.path, 'belege/{{ created_year }}/{{ title }}');
    assert.equal(sim.store.getDocument(6)?.storage_path, created?.id);
  });

  it('fails an action whose name the dms lacks, with the reason in its trace, and writes the rest', async () => {
    const res = await run(server, 'document=8&rule_id=unknown-tag&dry_run=false');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const [trace] = res.body.traces;
    assert.equal(trace.status, 'error');
    const tags = trace.actions.find((a) => a.action === 'add_tags');
    assert.equal(tags?.status, 'failed');
    assert.match(tags?.error ?? '', /Gibt-es-nicht.*create_missing/);
    assert.match(trace.error ?? '', /add_tags failed/);
    assert.equal(trace.actions.find((a) => a.action === 'set_title')?.status, 'applied');
    assert.equal(sim.store.getDocument(8)?.title, 'Mietvertrag (geprüft)');
    assert.equal(tagId(sim, 'Gibt-es-nicht'), undefined);
  });

  it('records the same action outcomes when a background job runs the rule', async () => {
    const doc = sim.store.getDocument(8);
    assert.ok(doc);
    doc.title = 'Mietvertrag neu';
    const res = await call<{ event_id: number }>(server.url, '/api/run?rule_id=unknown-tag&dry_run=false', {
      method: 'POST',
      token: API_TOKEN,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await waitForEvent(server.url, res.body.event_id);
    const event = await call<{ errors: number; status: string }>(server.url, `/api/events/${res.body.event_id}`, {
      token: API_TOKEN,
    });
    assert.equal(event.body.status, 'done', JSON.stringify(event.body));
    assert.ok(event.body.errors >= 1, 'the failed action counts as an error of the job');
    const traces = await call<{ traces: Trace[] }>(server.url, `/api/traces?event_id=${res.body.event_id}&document=8`, {
      token: API_TOKEN,
    });
    const [trace] = traces.body.traces;
    assert.equal(trace.source, 'job');
    assert.equal(trace.status, 'error');
    assert.equal(trace.actions.find((a) => a.action === 'set_title')?.status, 'applied');
    assert.match(trace.actions.find((a) => a.action === 'add_tags')?.error ?? '', /Gibt-es-nicht/);
    assert.equal(sim.store.getDocument(8)?.title, 'Mietvertrag (geprüft)');

    // Again: the title is right now, and the one change left cannot be written; still an error, not a quiet no-op.
    const again = await call<{ event_id: number }>(server.url, '/api/run?rule_id=unknown-tag&dry_run=false', {
      method: 'POST',
      token: API_TOKEN,
    });
    await waitForEvent(server.url, again.body.event_id);
    const second = await call<{ errors: number }>(server.url, `/api/events/${again.body.event_id}`, {
      token: API_TOKEN,
    });
    assert.ok(second.body.errors >= 1);
    const [retrace] = (
      await call<{ traces: Trace[] }>(server.url, `/api/traces?event_id=${again.body.event_id}&document=8`, {
        token: API_TOKEN,
      })
    ).body.traces;
    assert.equal(retrace.status, 'error');
    assert.equal(retrace.actions.find((a) => a.action === 'set_title')?.status, 'unchanged');
    assert.equal(retrace.actions.find((a) => a.action === 'add_tags')?.status, 'failed');
  });

  it('answers 502 with the dms error when the dms fails, and still records the traces', async () => {
    const doc = sim.store.getDocument(8);
    assert.ok(doc);
    doc.title = 'Mietvertrag alt'; // so the rule has a title to write
    const fault = sim.faults.inject({ route: 'PATCH /api/documents/{id}/', kind: 'status', status: 500 });
    try {
      const failing = await run(server, 'document=8&rule_id=unknown-tag&dry_run=false');
      assert.equal(failing.status, 502, JSON.stringify(failing.body));
      assert.equal(failing.body.ok, false);
      assert.match(failing.body.error ?? '', /dms/i);
    } finally {
      sim.faults.remove(fault.id);
    }
    assert.equal(sim.store.getDocument(8)?.title, 'Mietvertrag alt');
    const traces = await call<{ traces: Trace[] }>(server.url, '/api/traces?document=8&limit=1', { token: API_TOKEN });
    const [last] = traces.body.traces;
    assert.equal(last.status, 'error');
    assert.equal(last.actions.find((a) => a.action === 'set_title')?.status, 'failed');
  });

  it('answers 502 when the dms cannot be reached at all', async () => {
    const fault = sim.faults.inject({ route: '/api/documents/{id}/', kind: 'status', status: 503 });
    try {
      const res = await run(server, 'document=1');
      assert.equal(res.status, 502, JSON.stringify(res.body));
      assert.match(res.body.error ?? '', /503|dms/i);
    } finally {
      sim.faults.remove(fault.id);
    }
  });
});

describe('the trace history of real runs', () => {
  it('keeps SVC_TRACE_RETENTION traces across a restart, the newest first', async () => {
    const sim = await startSimulator();
    const dataDir = tempDir('dms-rules-data-');
    const rulesDir = tempDir('dms-rules-rules-');
    const env = { ...dmsEnv(sim), SVC_TRACE_RETENTION: '100' };
    let server = await startTestServer(env, { dataDir, rulesDir }, WITH_EXAMPLES);
    try {
      const listed = await call<{ loaded: Record<string, string | null> }>(server.url, '/api/ui/rules', {
        cookie: await login(server.url),
      });
      const rules = Object.keys(listed.body.loaded).length;
      assert.ok(rules > 1);
      const runs = Math.ceil(110 / rules) + 1;
      let last: Trace[] = [];
      const ids = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13];
      for (let i = 0; i < runs; i++) last = (await run(server, `document=${ids[i % ids.length]}`)).body.traces;
      const before = await call<{ traces: Trace[] }>(server.url, '/api/traces?limit=1000', { token: API_TOKEN });
      assert.equal(before.body.traces.length, 100);
      await server.close();

      server = await startTestServer(env, { dataDir, rulesDir }, WITH_EXAMPLES);
      const after = await call<{ traces: Trace[] }>(server.url, '/api/traces?limit=1000', { token: API_TOKEN });
      assert.equal(after.body.traces.length, 100);
      assert.deepEqual(
        after.body.traces.map((t) => t.id),
        before.body.traces.map((t) => t.id),
      );
      // Newest first: the last run's traces lead, in reverse order of recording.
      assert.deepEqual(
        after.body.traces.slice(0, last.length).map((t) => t.id),
        last.map((t) => t.id).reverse(),
      );
    } finally {
      await server.close();
      await sim.close();
    }
  });
});
