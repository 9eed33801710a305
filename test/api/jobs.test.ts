import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Simulator } from '../../tools/paperless-sim/simulator.js';
import type { Trace } from '../../server/engine/model.js';
import type { EventRecord } from '../../server/history/event-types.js';
import { API_TOKEN, call } from '../helpers/test-server.js';
import { bulkEdits, editInDms, patches, startJob, startRig, waitForEvent, type Rig } from './support/jobs-kit.js';

const PROCESSED = 9; // tag "rules-processed" in the simulator's vocabulary
const RECHNUNG_TYPE = 1;
const TELEKOM = 2;

const RULES = `
rules:
  - id: mark-invoices
    description: Invoices get the processed tag
    when:
      all:
        - document_type: Rechnung
        - not: { tags: { any: [rules-processed] } }
    actions:
      - add_tags: [rules-processed]
  - id: telekom-title
    description: Telekom documents get a normalised title
    when:
      correspondent: Telekom Deutschland GmbH
    actions:
      - set_title: "Telekom {{ doc.created | date: '%Y-%m' }} #{{ doc.id }}"
`;

const docs = (sim: Simulator) => [...sim.store.documents.values()];
const unprocessedInvoices = (sim: Simulator) =>
  docs(sim).filter((d) => d.document_type === RECHNUNG_TYPE && !d.tags.includes(PROCESSED));
const telekomDocs = (sim: Simulator) => docs(sim).filter((d) => d.correspondent === TELEKOM);

async function runJob(rig: Rig, query: string): Promise<EventRecord> {
  const res = await startJob(rig.server.url, query);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.queued, true);
  assert.equal(typeof res.body.event_id, 'number');
  return waitForEvent(rig.server.url, res.body.event_id as number);
}

async function tracesOf(rig: Rig, eventId: number): Promise<Trace[]> {
  const res = await call<{ traces: Trace[] }>(rig.server.url, `/api/traces?event_id=${eventId}&limit=1000`, {
    token: API_TOKEN,
  });
  assert.equal(res.status, 200);
  return res.body.traces;
}

describe('background jobs: one rule over all documents', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig(RULES, {}, { generate: { count: 340, seed: 7 } });
  });
  after(async () => rig?.close());

  it('answers at once with an increasing integer event id, and a dry run ends with an actionable report', async () => {
    const expected = unprocessedInvoices(rig.sim).map((d) => d.id);
    assert.ok(expected.length > 100, 'the generated set must span several pages');
    const before = JSON.stringify(docs(rig.sim));
    rig.sim.resetCounts();

    const first = await startJob(rig.server.url, 'rule_id=mark-invoices');
    assert.deepEqual(Object.keys(first.body).sort(), ['dry_run', 'event_id', 'ok', 'queued', 'rule_id']);
    assert.equal(first.body.dry_run, true);
    assert.equal(first.body.rule_id, 'mark-invoices');
    const event = await waitForEvent(rig.server.url, first.body.event_id as number);

    assert.equal(event.status, 'done', JSON.stringify(event));
    assert.equal(event.kind, 'job');
    assert.equal(event.total, expected.length, 'the prefilter narrowed the scan to unprocessed invoices');
    assert.equal(event.processed, expected.length);
    assert.equal(event.matched, expected.length);
    assert.equal(event.changed, expected.length);
    assert.equal(event.errors, 0);
    assert.ok(event.started_at && event.finished_at);
    const report = event.report;
    assert.ok(report);
    assert.equal(report.fields.tags, expected.length);
    assert.equal(report.prefilter.tags__id__none, String(PROCESSED));
    assert.equal(report.samples.length, 20);
    assert.ok(report.samples.every((s) => expected.includes(s.document) && Array.isArray(s.changes.tags?.to)));
    assert.match(report.summary, new RegExp(`${expected.length} would change`));
    assert.equal(patches(rig.sim) + bulkEdits(rig.sim), 0, 'a dry run writes nothing');
    assert.equal(JSON.stringify(docs(rig.sim)), before);

    const traces = await tracesOf(rig, event.event_id);
    assert.equal(traces.length, Math.min(expected.length, 1000));
    assert.ok(traces.every((t) => t.source === 'job' && t.dry_run && t.event_id === event.event_id));

    const second = await startJob(rig.server.url, 'rule_id=mark-invoices');
    assert.equal(second.body.event_id, event.event_id + 1);
    await waitForEvent(rig.server.url, second.body.event_id);
  });

  it('in real mode writes identical changes as bulk edits, and a second run finds nothing to do', async () => {
    const expected = unprocessedInvoices(rig.sim).map((d) => d.id);
    rig.sim.resetCounts();
    const event = await runJob(rig, 'rule_id=mark-invoices&dry_run=false');
    assert.equal(event.status, 'done', JSON.stringify(event));
    assert.equal(event.changed, expected.length);
    assert.equal(event.errors, 0);
    assert.equal(patches(rig.sim), 0, 'adding one tag to many documents needs no single PATCH');
    assert.ok(bulkEdits(rig.sim) >= 1 && bulkEdits(rig.sim) <= Math.ceil((event.total ?? 0) / 100) + 1);
    for (const id of expected)
      assert.ok(rig.sim.store.getDocument(id)?.tags.includes(PROCESSED), `document ${id} has the tag`);
    // A real run does not filter on the tags it writes (pages would shift), so it reads every invoice.
    assert.equal(event.report?.prefilter.tags__id__none, undefined);

    rig.sim.resetCounts();
    const again = await runJob(rig, 'rule_id=mark-invoices&dry_run=false');
    assert.equal(again.status, 'done');
    assert.equal(again.matched, 0);
    assert.equal(again.changed, 0);
    assert.equal(patches(rig.sim) + bulkEdits(rig.sim), 0);
  });

  it('rides out 429, 500 and dropped connections from the dms', async () => {
    const telekom = telekomDocs(rig.sim).map((d) => d.id);
    rig.sim.faults.inject({ route: 'GET /api/documents/', kind: 'rate_limit', retryAfter: 1, times: 1 });
    rig.sim.faults.inject({ route: 'GET /api/documents/', kind: 'status', status: 500, times: 1 });
    rig.sim.faults.inject({ route: 'PATCH /api/documents/{id}/', kind: 'drop', times: 2 });
    rig.sim.faults.inject({ route: 'PATCH /api/documents/{id}/', kind: 'status', status: 502, times: 2 });
    const event = await runJob(rig, 'rule_id=telekom-title&dry_run=false');
    rig.sim.faults.clear();
    assert.equal(event.status, 'done', JSON.stringify(event));
    assert.equal(event.errors, 0, JSON.stringify(event));
    assert.equal(event.changed, telekom.length);
    for (const id of telekom)
      assert.match(rig.sim.store.getDocument(id)?.title ?? '', new RegExp(`^Telekom \\d{4}-\\d{2} #${id}$`));

    const dry = await runJob(rig, 'rule_id=telekom-title');
    assert.equal(dry.matched, telekom.length);
    assert.equal(dry.changed, 0, 'a dry run after the real one finds nothing left to change');
    assert.equal(dry.report?.unchanged, telekom.length);
  });

  it('gives one failing document an error trace and goes on with the rest', async () => {
    const [first, second] = telekomDocs(rig.sim);
    await editInDms(rig.sim, first.id, { title: 'Telekom by hand' });
    await editInDms(rig.sim, second.id, { title: 'Telekom also by hand' });
    rig.sim.faults.inject({ route: `PATCH /api/documents/${first.id}/`, kind: 'status', status: 500 });
    const event = await runJob(rig, 'rule_id=telekom-title&dry_run=false');
    rig.sim.faults.clear();
    assert.equal(event.status, 'done');
    assert.equal(event.errors, 1);
    assert.equal(event.changed, 1, 'the other edited document was still fixed');
    assert.equal(rig.sim.store.getDocument(first.id)?.title, 'Telekom by hand');
    assert.match(rig.sim.store.getDocument(second.id)?.title ?? '', /^Telekom \d{4}-\d{2} #/);
    const traces = await tracesOf(rig, event.event_id);
    const failed = traces.filter((t) => t.status === 'error');
    assert.deepEqual(
      failed.map((t) => t.document),
      [first.id],
    );
    assert.ok(failed[0].error, 'the error trace says why');
  });

  it('cancels a running job; it stops early and a second cancel is a 409', async () => {
    rig.sim.faults.inject({ route: 'GET /api/documents/', kind: 'latency', ms: 1500 });
    const res = await startJob(rig.server.url, 'rule_id=telekom-title');
    const id = res.body.event_id as number;
    await waitForEvent(rig.server.url, id, (e) => e.status === 'running');
    const cancel = await call(rig.server.url, `/api/events/${id}/cancel`, { method: 'POST', token: API_TOKEN });
    assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
    const event = await waitForEvent(rig.server.url, id);
    rig.sim.faults.clear();
    assert.equal(event.status, 'cancelled');
    assert.ok(
      event.total === null || event.processed < event.total,
      `stopped before the end: ${JSON.stringify(event)}`,
    );
    const again = await call(rig.server.url, `/api/events/${id}/cancel`, { method: 'POST', token: API_TOKEN });
    assert.equal(again.status, 409);
  });

  it('lists events newest first, filters them, and guards the routes', async () => {
    const list = await call<{ events: EventRecord[] }>(rig.server.url, '/api/events?kind=job&limit=3', {
      token: API_TOKEN,
    });
    assert.equal(list.status, 200);
    assert.equal(list.body.events.length, 3);
    const ids = list.body.events.map((e) => e.event_id);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => b - a),
    );
    assert.equal((await call(rig.server.url, '/api/events')).status, 401);
    assert.equal((await call(rig.server.url, '/api/events', { token: 'wrong' })).status, 401);
    assert.equal((await call(rig.server.url, '/api/events/999999', { token: API_TOKEN })).status, 404);
    assert.equal((await call(rig.server.url, '/api/events/abc', { token: API_TOKEN })).status, 400);
    assert.equal((await call(rig.server.url, '/api/events?status=bogus', { token: API_TOKEN })).status, 400);
    const unknown = await startJob(rig.server.url, 'rule_id=no-such-rule');
    assert.equal(unknown.status, 404);
    assert.match(String(unknown.body.error), /no-such-rule/);
  });
});
