import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Trace } from '../../server/engine/model.js';
import type { EventRecord } from '../../server/history/event-types.js';
import { API_TOKEN, call, login } from '../helpers/test-server.js';
import { editInDms, startJob, startRig, waitForEvent, type Rig } from './support/jobs-kit.js';

const PROCESSED = 9; // tag "rules-processed" in the simulator's vocabulary
const RECHNUNG_TYPE = 1;

const tracesOf = async (rig: Rig, eventId: number): Promise<Trace[]> =>
  (await call<{ traces: Trace[] }>(rig.server.url, `/api/traces?event_id=${eventId}&limit=1000`, { token: API_TOKEN }))
    .body.traces;

async function runJob(rig: Rig, query: string): Promise<EventRecord> {
  const res = await startJob(rig.server.url, query);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return waitForEvent(rig.server.url, res.body.event_id as number);
}

async function deliver(rig: Rig, document: number): Promise<EventRecord> {
  const res = await call<{ event_id: number }>(rig.server.url, '/api/webhook/dms', {
    method: 'POST',
    token: API_TOKEN,
    body: { event: 'document_updated', doc_id: String(document) },
  });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return waitForEvent(rig.server.url, res.body.event_id);
}

describe('the one run pipeline: a job and a webhook run count a document the same way', () => {
  // One field the dms accepts (the tag) and one the planner must refuse (an unknown correspondent, not created).
  const RULES = `
rules:
  - id: half-writable
    when: { id: 10 }
    actions:
      - add_tags: [rules-processed]
      - set_correspondent: No Such Company
`;
  let rig: Rig;
  before(async () => {
    rig = await startRig(RULES);
  });
  after(async () => rig?.close());

  it('a field whose write failed is not "changed", and the document is an error, on both paths', async () => {
    const document = rig.sim.store.documents.get(10);
    assert.ok(document && !document.tags.includes(PROCESSED), 'document 10 starts without the tag');
    const originalTags = [...document.tags];

    const job = await runJob(rig, 'rule_id=half-writable&dry_run=false');
    assert.equal(job.status, 'done', JSON.stringify(job));
    assert.ok(rig.sim.store.documents.get(10)?.tags.includes(PROCESSED), 'the job wrote the tag');

    // As a person would: the tag taken off again, so the webhook run finds the same document.
    await editInDms(rig.sim, 10, { tags: originalTags });
    const delivery = await deliver(rig, 10);
    assert.equal(delivery.status, 'done', JSON.stringify(delivery));
    assert.ok(rig.sim.store.documents.get(10)?.tags.includes(PROCESSED), 'the webhook run wrote the tag');

    const counts = (e: EventRecord) => ({ matched: e.matched, changed: e.changed, errors: e.errors });
    assert.deepEqual(counts(job), { matched: 1, changed: 1, errors: 1 });
    assert.deepEqual(counts(delivery), counts(job));

    const ofDocument = async (eventId: number) => {
      const traces = (await tracesOf(rig, eventId)).filter((t) => t.document === 10);
      assert.equal(traces.length, 1);
      return traces[0];
    };
    const jobTrace = await ofDocument(job.event_id);
    const runTrace = await ofDocument(delivery.event_id);
    const actions = (t: Trace) => t.actions.map((a) => [a.action, a.status]);
    assert.deepEqual(actions(jobTrace), [
      ['add_tags', 'applied'],
      ['set_correspondent', 'failed'],
    ]);
    assert.deepEqual(actions(runTrace), actions(jobTrace));
  });
});

describe('a job runs under the rule version it started with', () => {
  const version = (n: number, when: string) => `
rules:
  - id: versioned
    description: version ${n}
    when: ${when}
    actions:
      - add_tags: [rules-processed]
`;
  let rig: Rig;
  before(async () => {
    rig = await startRig(version(1, '{ document_type: Rechnung }'), {}, { generate: { count: 40, seed: 3 } });
  });
  after(async () => rig?.close());

  it('an edit saved while the job waits for its first page changes neither its prefilter nor its evaluation', async () => {
    const invoices = [...rig.sim.store.documents.values()].filter((d) => d.document_type === RECHNUNG_TYPE);
    assert.ok(invoices.length > 0 && invoices.length < rig.sim.store.documents.size);

    // The job reads the rule and builds its prefilter, then waits here for its first page.
    const hold = rig.sim.faults.inject({ route: 'GET /api/documents/', kind: 'hold' });
    const started = await startJob(rig.server.url, 'rule_id=versioned');
    assert.equal(started.status, 200, JSON.stringify(started.body));
    while (hold.hits === 0) await new Promise((resolve) => setTimeout(resolve, 10));

    // Version 2 matches no document; saved and loaded before the job reads a single one.
    fs.writeFileSync(path.join(rig.server.rulesDir, 'test-rules.yml'), version(2, '{ title: "never a title" }'));
    const reload = await call(rig.server.url, '/api/reload', { method: 'POST', token: API_TOKEN });
    assert.equal(reload.status, 200, JSON.stringify(reload.body));
    const loaded = await call<{ loaded: Record<string, string | null> }>(rig.server.url, '/api/ui/rules', {
      cookie: await login(rig.server.url),
    });
    assert.equal(loaded.body.loaded.versioned, 'version 2');

    rig.sim.faults.release(hold.id);
    const event = await waitForEvent(rig.server.url, started.body.event_id as number);
    assert.equal(event.status, 'done', JSON.stringify(event));
    assert.equal(event.total, invoices.length, "version 1's prefilter chose the documents");
    // Evaluated by version 1, every invoice matches; version 2 would have matched none of them.
    assert.equal(event.matched, invoices.length);
    const traces = await tracesOf(rig, event.event_id);
    assert.equal(traces.length, invoices.length);
    for (const trace of traces) {
      assert.equal(trace.status, 'matched');
      assert.deepEqual(
        trace.conditions.map((c) => c.field),
        ['document_type'],
        'the conditions are version 1 (document_type), not version 2 (title)',
      );
    }
  });
});
