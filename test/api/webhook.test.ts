import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Trace } from '../../server/engine/model.js';
import { arrivalsSettled, echoesSkipped } from '../helpers/arrivals.js';
import { API_TOKEN, call, login, startTestServer } from '../helpers/test-server.js';
import { editInDms, startRig, waitForEvent, type Rig } from './support/jobs-kit.js';

interface Example {
  name: string;
  document_id: number;
  request: { content_type: string | null; body: string };
}
const examples = (
  JSON.parse(fs.readFileSync(new URL('../fixtures/webhook/webhook-examples.json', import.meta.url), 'utf8')) as {
    examples: Example[];
  }
).examples;

const RULES = `
rules:
  - id: on-added
    on: [added]
    when: { content: { contains: Lieferschein } }
    actions:
      - add_tags: [Receipt]
  - id: on-updated
    on: [updated]
    when: { title: { contains: Telekom } }
    actions:
      - add_tags: [rules-processed]
`;

interface Answer {
  ok: boolean;
  queued: boolean;
  document: number;
  event_id: number;
  duplicate?: boolean;
  error?: string;
}

function post(
  url: string,
  body: string | Uint8Array | undefined,
  headers: Record<string, string> = {},
  token: string | null = API_TOKEN,
) {
  return fetch(`${url}/api/webhook/dms`, {
    method: 'POST',
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body,
  }).then(async (res) => ({ status: res.status, headers: res.headers, body: (await res.json()) as Answer }));
}

const json = (url: string, value: unknown) => post(url, JSON.stringify(value), { 'content-type': 'application/json' });
const tracesFor = async (url: string, eventId: number) =>
  (await call<{ traces: Trace[] }>(url, `/api/traces?event_id=${eventId}`, { token: API_TOKEN })).body.traces;

describe('POST /api/webhook/dms', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig(RULES);
  });
  after(async () => rig?.close());

  it('refuses a missing or wrong bearer token with 401', async () => {
    assert.equal(
      (await post(rig.server.url, '{"doc_id":"1"}', { 'content-type': 'application/json' }, null)).status,
      401,
    );
    assert.equal(
      (await post(rig.server.url, '{"doc_id":"1"}', { 'content-type': 'application/json' }, 'wrong')).status,
      401,
    );
    const session = await call(rig.server.url, '/api/webhook/dms', { body: { doc_id: 1 } });
    assert.equal(session.status, 401);
  });

  it('runs the rules for the trigger in real mode and records webhook traces', async () => {
    const res = await json(rig.server.url, { event: 'document_updated', doc_id: '10' });
    const event = await waitForEvent(rig.server.url, res.body.event_id);
    assert.equal(event.status, 'done', JSON.stringify(event));
    assert.equal(event.dry_run, false);
    assert.ok(rig.sim.store.getDocument(10)?.tags.includes(9));
    const traces = await tracesFor(rig.server.url, event.event_id);
    const status = Object.fromEntries(traces.map((t) => [t.rule_id, t.status]));
    assert.deepEqual(
      status,
      { 'on-updated': 'matched', 'on-added': 'skipped' },
      'only rules whose on: holds the trigger run',
    );
    assert.ok(traces.every((t) => t.source === 'webhook' && t.document === 10));
  });

  it("recognises the echo of its own write by the document's state, and a person's edit right after it as a change", async () => {
    // Document 10 was just written by the previous test: this is the "Document Updated" echo.
    const before = await echoesSkipped(rig.server.url);
    const echo = await json(rig.server.url, { event: 'document_updated', doc_id: '10' });
    assert.equal(echo.status, 202);
    assert.equal(echo.body.queued, true, 'accepted and persisted first: only the fetched state tells an echo');
    await arrivalsSettled(rig.server.url);
    assert.equal(
      (await call(rig.server.url, `/api/events/${echo.body.event_id}`, { token: API_TOKEN })).status,
      404,
      'an echo leaves no event',
    );
    const health = await call<{ arrival: { echoes_skipped: number } }>(rig.server.url, '/api/health', {
      cookie: await login(rig.server.url),
    });
    assert.equal(health.body.arrival.echoes_skipped, before + 1);
    // A person removes the tag at once: a different state, so the rules run however soon it comes.
    const tags = (rig.sim.store.getDocument(10)?.tags ?? []).filter((t) => t !== 9);
    await editInDms(rig.sim, 10, { tags });
    const edit = await json(rig.server.url, { event: 'document_updated', doc_id: '10' });
    const event = await waitForEvent(rig.server.url, edit.body.event_id);
    assert.equal(event.status, 'done');
    assert.equal(event.changed, 1);
    assert.ok(rig.sim.store.getDocument(10)?.tags.includes(9));
  });

  it('waits out a document that is added before the dms has committed it', async () => {
    const id = 5000;
    const res = await json(rig.server.url, { event: 'document_added', doc_id: String(id) });
    assert.equal(res.status, 202);
    // Staged on what the service has asked the dms, not on timers: a 404 first, then the document without
    // its text, then the text.
    const reads = () => rig.sim.requests().filter((r) => r.startsWith(`GET /api/documents/${id}/`)).length;
    const readsAfter = async (count: number) => {
      while (reads() <= count) await new Promise((resolve) => setTimeout(resolve, 5));
      return reads();
    };
    const notFound = await readsAfter(0);
    rig.sim.addDocument({ id, title: 'Scan', content: '' });
    await readsAfter(notFound);
    const doc = rig.sim.store.getDocument(id);
    if (doc) doc.content = 'Lieferschein Nr. 4711';
    const event = await waitForEvent(rig.server.url, res.body.event_id);
    assert.equal(event.status, 'done', JSON.stringify(event));
    assert.ok(rig.sim.store.getDocument(id)?.tags.includes(8), 'the rule saw the content that arrived late');
  });

  it('fails an "updated" delivery for a missing document at once, naming it', async () => {
    const res = await json(rig.server.url, { event: 'document_updated', doc_id: '777777' });
    const event = await waitForEvent(rig.server.url, res.body.event_id);
    assert.equal(event.status, 'failed');
    assert.match(event.error ?? '', /777777/);
    const traces = await call<{ traces: Array<{ status: string; source: string; error: string | null }> }>(
      rig.server.url,
      '/api/traces?document=777777',
      {
        token: API_TOKEN,
      },
    );
    assert.ok(traces.body.traces.length > 0, 'the failure is in the trace history, not only the event record');
    for (const trace of traces.body.traces) {
      assert.equal(trace.status, 'error');
      assert.equal(trace.source, 'webhook');
      assert.match(trace.error ?? '', /777777 was not found/);
    }
  });

  it('collapses repeated deliveries for a document already waiting into one run', async () => {
    rig.sim.faults.inject({ route: 'GET /api/documents/{id}/', kind: 'latency', ms: 2000, times: 2 });
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => json(rig.server.url, { event: 'document_updated', doc_id: '3' })),
    );
    assert.ok(answers.every((a) => a.status === 202));
    const ids = new Set(answers.map((a) => a.body.event_id));
    assert.ok(ids.size <= 2, `at most one running and one waiting run, got ${[...ids].join(',')}`);
    assert.ok(answers.some((a) => a.body.duplicate));
    await arrivalsSettled(rig.server.url);
    rig.sim.faults.clear();
  });
});

describe('webhook with SVC_WEBHOOK_DRY_RUN: every Paperless body form', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig(RULES, { SVC_WEBHOOK_DRY_RUN: 'true' });
  });
  after(async () => rig?.close());

  for (const example of examples) {
    it(`accepts Paperless body form ${example.name}`, async () => {
      const headers: Record<string, string> = example.request.content_type
        ? { 'content-type': example.request.content_type }
        : {};
      const res = await post(rig.server.url, example.request.body === '' ? undefined : example.request.body, headers);
      if (example.name.startsWith('F_')) {
        assert.equal(res.status, 400);
        assert.match(res.body.error ?? '', /doc_id/);
        return;
      }
      assert.equal(res.status, 202, JSON.stringify(res.body));
      assert.equal(res.body.ok, true);
      assert.equal(res.body.queued, true);
      assert.equal(res.body.document, example.document_id);
      assert.equal(typeof res.body.event_id, 'number');
      const event = await waitForEvent(rig.server.url, res.body.event_id);
      assert.equal(event.kind, 'webhook');
      assert.equal(event.document, example.document_id);
      assert.equal(event.status, 'done', JSON.stringify(event));
      assert.equal(event.dry_run, true);
    });
  }

  it('reads JSON sent as text/plain and form fields without a Content-Type; refuses odd bodies with a reason', async () => {
    const plain = await post(rig.server.url, '{"doc_id": 4, "event": "added"}', { 'content-type': 'text/plain' });
    assert.equal(plain.status, 202);
    assert.equal(plain.body.document, 4);
    // A Uint8Array body makes fetch send no Content-Type at all, like a raw Paperless body template.
    const bare = await post(rig.server.url, new TextEncoder().encode('doc_url=None%2Fdocuments%2F6%2F'));
    assert.equal(bare.status, 202, JSON.stringify(bare.body));
    assert.equal(bare.body.document, 6);
    const array = await post(rig.server.url, '[1]', { 'content-type': 'application/json' });
    assert.equal(array.status, 400);
    const big = await post(rig.server.url, JSON.stringify({ doc_id: '1', pad: 'x'.repeat(300 * 1024) }), {
      'content-type': 'application/json',
    });
    assert.equal(big.status, 413);
    const broken = await post(rig.server.url, 'not multipart at all', { 'content-type': 'multipart/form-data' });
    assert.equal(broken.status, 400);
    await arrivalsSettled(rig.server.url);
  });

  it('plans without writing', async () => {
    const before = JSON.stringify(rig.sim.store.getDocument(10));
    const res = await json(rig.server.url, { event: 'document_updated', doc_id: '10' });
    const event = await waitForEvent(rig.server.url, res.body.event_id);
    assert.equal(event.dry_run, true);
    assert.equal(event.matched, 1);
    assert.equal(JSON.stringify(rig.sim.store.getDocument(10)), before);
    const traces = await tracesFor(rig.server.url, event.event_id);
    assert.ok(traces[0].actions.every((a) => a.status === 'planned'));
  });
});

describe('webhook without SVC_API_TOKEN', () => {
  it('refuses every call with 401', async () => {
    const server = await startTestServer({ SVC_API_TOKEN: '' });
    try {
      const res = await post(server.url, '{"doc_id":"1"}', { 'content-type': 'application/json' }, 'anything');
      assert.equal(res.status, 401);
      assert.match(res.body.error ?? '', /SVC_API_TOKEN/);
    } finally {
      await server.close();
    }
  });
});
