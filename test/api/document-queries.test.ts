import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import type { Trace } from '../../server/engine/engine.js';
import { API_TOKEN, call, startTestServer, tempDir, type TestServer } from '../helpers/test-server.js';
import { startJob, waitForEvent } from './support/jobs-kit.js';

const RULES = String.raw`
rules:
  - id: next-asn
    on: [manual]
    when: { archive_serial_number: { exists: false } }
    extract:
      last_asn: { query: max, field: archive_serial_number, default: 0 }
    actions:
      - set_archive_serial_number: "{{ last_asn | plus: 1 }}"
  - id: flag-duplicates
    on: [manual]
    extract:
      twins:
        query: count
        default: 0
        where: { correspondent: "{{ doc.correspondent }}", title: "{{ doc.title }}" }
    when: { check: "twins > 0" }
    actions:
      - add_tags: Duplikat
        create_missing: true
  - id: link-case
    on: [manual]
    extract:
      case: { regex: 'Aktenzeichen (AZ-\d+)', required: true }
      related: { query: ids, where: { custom_fields.Aktenzeichen: "{{ case }}" } }
      invoice: { query: first, where: { document_type: Rechnung, custom_fields.Aktenzeichen: "{{ case }}" } }
    actions:
      - set_custom_fields:
          Aktenzeichen: "{{ case }}"
          Verknüpft: "{{ related | join: ',' }}"
          Rechnung zum Fall: "{{ invoice }}"
  - id: correspondent-sequence
    on: [manual]
    when: { correspondent: { exists: true } }
    extract:
      last_number:
        query: max
        field: custom_fields.Laufnummer
        type: int
        default: 0
        where: { correspondent: "{{ doc.correspondent }}" }
    actions:
      - set_custom_fields: { Laufnummer: "{{ last_number | plus: 1 }}" }
        if_empty: true
`;

async function createField(sim: Simulator, name: string, dataType: string): Promise<number> {
  const res = await fetch(`${sim.url}/api/custom_fields/`, {
    method: 'POST',
    headers: { authorization: `Token ${sim.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, data_type: dataType }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  return ((await res.json()) as { id: number }).id;
}

async function run(server: TestServer, document: number, rule: string, dryRun: boolean): Promise<Trace> {
  const res = await call<{ traces: Trace[] }>(
    server.url,
    `/api/run?document=${document}&rule_id=${rule}&dry_run=${dryRun}`,
    { method: 'POST', token: API_TOKEN },
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.traces.length, 1);
  return res.body.traces[0];
}

const line = (t: Trace, name: string) => t.conditions.find((c) => c.path === `extract/${name}`)?.description ?? '';

describe('queries over other documents, answered by the dms', () => {
  let sim: Simulator;
  let server: TestServer;
  const field: Record<string, number> = {};

  before(async () => {
    sim = await startSimulator();
    field.Aktenzeichen = await createField(sim, 'Aktenzeichen', 'string');
    field.Verknüpft = await createField(sim, 'Verknüpft', 'documentlink');
    field['Rechnung zum Fall'] = await createField(sim, 'Rechnung zum Fall', 'documentlink');
    field.Laufnummer = await createField(sim, 'Laufnummer', 'integer');
    const rulesDir = tempDir('dms-rules-queries-');
    fs.writeFileSync(path.join(rulesDir, 'queries.yml'), RULES);
    server = await startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token }, { rulesDir });
  });
  after(async () => {
    await server?.close();
    await sim?.close();
  });

  it('next ASN: the highest ASN (by the dms, ordering=-archive_serial_number) plus one, again after each write', async () => {
    const dry = await run(server, 5, 'next-asn', true);
    assert.equal(dry.status, 'matched', dry.error ?? '');
    assert.deepEqual(dry.changes.archive_serial_number, { from: null, to: 103 });
    assert.equal(
      line(dry, 'last_asn'),
      'extract last_asn: max archive_serial_number of other documents → 102 (5 found)',
    );
    assert.equal(sim.store.getDocument(5)?.archive_serial_number, null, 'a dry run writes nothing');

    await run(server, 5, 'next-asn', false);
    assert.equal(sim.store.getDocument(5)?.archive_serial_number, 103);
    const next = await run(server, 9, 'next-asn', true);
    assert.deepEqual(
      next.changes.archive_serial_number,
      { from: null, to: 104 },
      'a new run asks again: no stale answer',
    );
    // The list leaves the trash out, while Paperless keeps a trashed document's ASN taken (the seed's document 11
    // holds 104): the real run says so in the dms's words instead of writing a duplicate (docs/decisions.md).
    const res = await call<{ error: string }>(server.url, '/api/run?document=9&rule_id=next-asn&dry_run=false', {
      method: 'POST',
      token: API_TOKEN,
    });
    assert.equal(res.status, 502);
    assert.match(res.body.error, /already exists in the trash/);
  });

  it('a query the dms refuses fails its rule; a dms that does not answer fails the run, as any dms failure', async () => {
    const refused = sim.faults.inject({ route: 'GET /api/documents/', kind: 'status', status: 400, times: 1 });
    const trace = await run(server, 8, 'next-asn', true);
    sim.faults.remove(refused.id);
    assert.equal(trace.status, 'not_matched', 'document 8 has an ASN: conditions first, no query');
    sim.addDocument({ id: 60 });
    sim.faults.inject({ route: 'GET /api/documents/', kind: 'status', status: 400, times: 1 });
    const failed = await run(server, 60, 'next-asn', true);
    assert.equal(failed.status, 'error');
    assert.match(
      failed.error ?? '',
      /query max archive_serial_number of other documents failed: the dms refused the query/,
    );

    const down = sim.faults.inject({ route: 'GET /api/documents/', kind: 'status', status: 503 });
    const res = await call<{ error: string }>(server.url, '/api/run?document=60&rule_id=next-asn&dry_run=true', {
      method: 'POST',
      token: API_TOKEN,
    });
    sim.faults.remove(down.id);
    assert.equal(res.status, 502, JSON.stringify(res.body));
    assert.match(res.body.error, /dms failed/i);
  });

  it('duplicates: a count with the same correspondent and title, the document itself left out', async () => {
    const twin = sim.addDocument({ correspondent: 2, document_type: 1, title: 'Telekom Rechnung Februar 2025' });
    const matched = await run(server, twin.id, 'flag-duplicates', true);
    assert.equal(matched.status, 'matched', matched.error ?? '');
    assert.match(
      line(matched, 'twins'),
      /count of other documents where correspondent = "Telekom Deutschland GmbH" and title = "Telekom Rechnung Februar 2025" → 1 \(1 found\)/,
    );
    const alone = await run(server, 10, 'flag-duplicates', true);
    assert.equal(alone.status, 'not_matched');
    assert.match(line(alone, 'twins'), /→ 0 \(0 found\)/);
  });

  it('links the documents that share a case number, and the invoice of the case, in document-link fields', async () => {
    const cf = (name: string, value: unknown) => ({ field: field[name], value });
    const invoice = sim.addDocument({
      document_type: 1,
      created: '2025-01-10',
      custom_fields: [cf('Aktenzeichen', 'AZ-7')],
    });
    const letter = sim.addDocument({
      document_type: 2,
      created: '2025-02-01',
      custom_fields: [cf('Aktenzeichen', 'AZ-7')],
    });
    sim.addDocument({ document_type: 1, created: '2024-12-01', custom_fields: [cf('Aktenzeichen', 'AZ-8')] });
    const asking = sim.addDocument({ content: 'Betreff: Aktenzeichen AZ-7, Ihr Schreiben' });

    const trace = await run(server, asking.id, 'link-case', false);
    assert.equal(trace.status, 'matched', trace.error ?? '');
    assert.match(line(trace, 'related'), new RegExp(`→ \\[${invoice.id}, ${letter.id}\\] \\(2 found\\)`));
    assert.match(
      line(trace, 'invoice'),
      new RegExp(
        `first of other documents where document_type = "Rechnung" and custom_fields.Aktenzeichen = "AZ-7" → ${invoice.id}`,
      ),
    );
    const stored = sim.store.getDocument(asking.id)?.custom_fields ?? [];
    assert.deepEqual(stored.find((c) => c.field === field.Verknüpft)?.value, [invoice.id, letter.id]);
    assert.deepEqual(stored.find((c) => c.field === field['Rechnung zum Fall'])?.value, [invoice.id]);
  });

  it('a per-correspondent sequence number: max of an integer custom field (ordering=-custom_field_<id>)', async () => {
    sim.addDocument({ correspondent: 5, custom_fields: [{ field: field.Laufnummer, value: 4 }] });
    sim.addDocument({ correspondent: 5, custom_fields: [{ field: field.Laufnummer, value: null }] });
    sim.addDocument({ correspondent: 1, custom_fields: [{ field: field.Laufnummer, value: 9 }] });
    const trace = await run(server, 9, 'correspondent-sequence', false);
    assert.equal(trace.status, 'matched', trace.error ?? '');
    assert.match(
      line(trace, 'last_number'),
      /max custom_fields.Laufnummer of other documents where correspondent = "ACME Corp." → 4 \(1 found\)/,
    );
    const stored = sim.store.getDocument(9)?.custom_fields.find((c) => c.field === field.Laufnummer);
    assert.equal(stored?.value, 5);
  });
});

describe('a job whose rule uses a query asks the dms once per distinct question', () => {
  let sim: Simulator;
  let server: TestServer;

  before(async () => {
    sim = await startSimulator({ generate: { count: 1000, seed: 3 } });
    const rulesDir = tempDir('dms-rules-queries-job-');
    fs.writeFileSync(
      path.join(rulesDir, 'count.yml'),
      `rules:
  - id: number-of-documents
    extract:
      others: { query: count, where: { correspondent: "{{ doc.correspondent }}" } }
    actions:
      - add_note: "{{ others }} other documents from {{ doc.correspondent }}"
`,
    );
    server = await startTestServer(
      { SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token, SVC_EVAL_WORKERS: '1' },
      { rulesDir },
    );
  });
  after(async () => {
    await server?.close();
    await sim?.close();
  });

  it('1,000+ documents, a handful of correspondents: the answers come from the job cache, through a worker thread', async () => {
    const docs = [...sim.store.documents.values()];
    const correspondents = new Set(docs.map((d) => d.correspondent).filter((c) => c !== null));
    // The questions, told from the job's own scan by their filter (a fault that only counts); the scan's page size
    // follows the dms's measured costs, so its request count is no baseline.
    const asked = sim.faults.inject({
      route: 'GET /api/documents/',
      kind: 'latency',
      ms: 0,
      params: { correspondent__id__in: /./ },
    });
    const started = await startJob(server.url, 'rule_id=number-of-documents');
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const event = await waitForEvent(server.url, started.body.event_id as number);
    assert.equal(event.status, 'done', JSON.stringify(event));
    assert.equal(event.errors, 0, JSON.stringify(event.report));
    // Documents without a correspondent match too: their question rendered empty, so nothing was asked.
    assert.equal(event.matched, docs.length);

    const res = await call<{ traces: Trace[] }>(server.url, `/api/traces?event_id=${event.event_id}&limit=50`, {
      token: API_TOKEN,
    });
    const sample = res.body.traces.find((t) => line(t, 'others').includes('→'));
    assert.ok(sample);
    const doc = docs.find((d) => d.id === sample.document);
    const expected = docs.filter((d) => d.correspondent === doc?.correspondent).length - 1;
    assert.match(line(sample, 'others'), new RegExp(`→ ${expected} \\(${expected} found`));

    assert.deepEqual(
      server.logs.filter((l) => l.includes('worker')),
      [],
      'the rounds went through a worker thread, not the inline fallback',
    );
    const queries = sim.faults.list().find((f) => f.id === asked.id)?.hits ?? 0;
    sim.faults.remove(asked.id);
    // One question per correspondent, whatever the number of documents.
    assert.equal(queries, correspondents.size, `${queries} query requests for ${docs.length} documents`);
  });
});
