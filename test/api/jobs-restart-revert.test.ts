import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Trace } from '../../server/engine/model.js';
import type { EventRecord } from '../../server/history/event-types.js';
import { API_TOKEN, call, startTestServer } from '../helpers/test-server.js';
import { editInDms, getEvent, startJob, startRig, waitForEvent } from './support/jobs-kit.js';

const RULES = `
rules:
  - id: telekom-title
    when:
      correspondent: Telekom Deutschland GmbH
    actions:
      - set_title: "Telekom {{ doc.created | date: '%Y-%m' }} #{{ doc.id }}"
  - id: mark-invoices
    when:
      document_type: Rechnung
    actions:
      - add_tags: [rules-processed]
`;
const PROCESSED = 9;
const STEUER = 4;

async function revert(
  url: string,
  eventId: number,
  query = '',
): Promise<{ status: number; body: Record<string, unknown> }> {
  return call(url, `/api/events/${eventId}/revert${query}`, { method: 'POST', token: API_TOKEN });
}

describe('a job running when the service stops', () => {
  it('is interrupted after restart, and event ids keep increasing', async () => {
    const rig = await startRig(RULES, {}, { generate: { count: 250, seed: 3 } });
    let restarted: Awaited<ReturnType<typeof startTestServer>> | undefined;
    try {
      // Slow pages keep the job running while the service stops.
      rig.sim.faults.inject({ route: 'GET /api/documents/', kind: 'latency', ms: 2000 });
      const res = await startJob(rig.server.url, 'rule_id=telekom-title');
      const id = res.body.event_id as number;
      await waitForEvent(rig.server.url, id, (e) => e.status === 'running');
      await rig.server.close();

      restarted = await startTestServer(
        { SVC_DMS_URL: rig.sim.url, SVC_DMS_TOKEN: rig.sim.token },
        { dataDir: rig.server.dataDir, rulesDir: rig.server.rulesDir },
      );
      const event = await getEvent(restarted.url, id);
      assert.equal(event.status, 'interrupted');
      assert.ok(event.finished_at);
      assert.match(event.error ?? '', /stopped/);
      rig.sim.faults.clear();
      const next = await startJob(restarted.url, 'rule_id=telekom-title');
      // Greater, not id + 1: the start's catch-up is an event too.
      assert.ok((next.body.event_id as number) > id);
      assert.equal((await waitForEvent(restarted.url, next.body.event_id as number)).status, 'done');
    } finally {
      await restarted?.close();
      await rig.sim.close();
    }
  });
});

describe('revert', () => {
  it('restores what a job wrote, but never a field a person edited since', async () => {
    const rig = await startRig(RULES, {}, { generate: { count: 150, seed: 5 } });
    try {
      const telekom = [...rig.sim.store.documents.values()].filter((d) => d.correspondent === 2);
      assert.ok(telekom.length >= 3);
      const original = new Map(telekom.map((d) => [d.id, d.title]));

      const dry = await startJob(rig.server.url, 'rule_id=telekom-title');
      await waitForEvent(rig.server.url, dry.body.event_id as number);
      assert.equal(
        (await revert(rig.server.url, dry.body.event_id as number)).status,
        409,
        'a dry run wrote nothing to undo',
      );

      const job = await startJob(rig.server.url, 'rule_id=telekom-title&dry_run=false');
      const jobId = job.body.event_id as number;
      const done = await waitForEvent(rig.server.url, jobId);
      assert.equal(done.changed, telekom.length);
      const [edited, ...untouched] = telekom;
      await editInDms(rig.sim, edited.id, { title: 'Renamed by a person' });

      const preview = await revert(rig.server.url, jobId, '?dry_run=true');
      assert.equal(preview.status, 202, JSON.stringify(preview.body));
      const previewEvent = await waitForEvent(rig.server.url, preview.body.event_id as number);
      assert.equal(previewEvent.changed, untouched.length);
      assert.match(
        rig.sim.store.getDocument(untouched[0].id)?.title ?? '',
        /^Telekom \d{4}-\d{2} #/,
        'a dry revert writes nothing',
      );

      const res = await revert(rig.server.url, jobId);
      assert.equal(res.status, 202);
      assert.equal(res.body.reverts, jobId);
      const event: EventRecord = await waitForEvent(rig.server.url, res.body.event_id as number);
      assert.equal(event.kind, 'revert');
      // Restored in part: not `done`, and it says how many were left and why.
      assert.equal(event.status, 'failed', JSON.stringify(event));
      assert.match(event.error ?? '', /1 not \(1 edited since\)/);
      assert.equal(event.total, telekom.length);
      assert.equal(event.changed, untouched.length);
      assert.equal(event.report?.reverted, untouched.length);
      assert.equal(event.report?.skipped_edited, 1);
      assert.equal(rig.sim.store.getDocument(edited.id)?.title, 'Renamed by a person');
      for (const d of untouched) assert.equal(rig.sim.store.getDocument(d.id)?.title, original.get(d.id));

      const traces = (
        await call<{ traces: Trace[] }>(rig.server.url, `/api/traces?event_id=${event.event_id}&limit=1000`, {
          token: API_TOKEN,
        })
      ).body.traces;
      assert.equal(traces.length, telekom.length);
      const skipped = traces.find((t) => t.document === edited.id);
      assert.ok(skipped?.conditions.some((c) => !c.result && c.actual === 'Renamed by a person'));
      assert.ok(
        traces.filter((t) => t.document !== edited.id).every((t) => t.actions.every((a) => a.status === 'applied')),
      );
    } finally {
      await rig.close();
    }
  });

  it('undoes a bulk-edited tag one by one, keeping a tag a person added since', async () => {
    const rig = await startRig(RULES, {}, { generate: { count: 120, seed: 9 } });
    try {
      const invoices = [...rig.sim.store.documents.values()].filter(
        (d) => d.document_type === 1 && !d.tags.includes(PROCESSED),
      );
      const before = new Map(invoices.map((d) => [d.id, [...d.tags].sort()]));
      const job = await startJob(rig.server.url, 'rule_id=mark-invoices&dry_run=false');
      const jobId = job.body.event_id as number;
      assert.equal((await waitForEvent(rig.server.url, jobId)).changed, invoices.length);
      const person = invoices[0];
      await editInDms(rig.sim, person.id, { tags: [...(rig.sim.store.getDocument(person.id)?.tags ?? []), STEUER] });

      const res = await revert(rig.server.url, jobId);
      const event = await waitForEvent(rig.server.url, res.body.event_id as number);
      assert.equal(event.status, 'done', JSON.stringify(event));
      assert.equal(event.changed, invoices.length);
      for (const d of invoices.slice(1))
        assert.deepEqual([...(rig.sim.store.getDocument(d.id)?.tags ?? [])].sort(), before.get(d.id));
      const personTags = rig.sim.store.getDocument(person.id)?.tags ?? [];
      assert.ok(personTags.includes(STEUER) && !personTags.includes(PROCESSED), JSON.stringify(personTags));
    } finally {
      await rig.close();
    }
  });

  it('undo detaches a custom field the job attached (bulk modify_custom_fields), and keeps one a person filled since', async () => {
    const rules = `
rules:
  - id: checklist
    when: { document_type: Rechnung }
    actions:
      - set_custom_fields: { Rechnungsnummer: offen }
`;
    const rig = await startRig(rules, {}, { generate: { count: 60, seed: 4 } });
    const NUMBER = 4;
    try {
      const targets = [...rig.sim.store.documents.values()].filter(
        (d) => d.document_type === 1 && !d.custom_fields.some((cf) => cf.field === NUMBER),
      );
      assert.ok(targets.length > 2, 'the generator makes invoices without the field');
      rig.sim.resetCounts();
      const job = await startJob(rig.server.url, 'rule_id=checklist&dry_run=false');
      const jobId = job.body.event_id as number;
      await waitForEvent(rig.server.url, jobId);
      assert.ok(
        targets.every((d) =>
          rig.sim.store.getDocument(d.id)?.custom_fields.some((cf) => cf.field === NUMBER && cf.value === 'offen'),
        ),
      );
      assert.equal(
        rig.sim.counts()['PATCH /api/documents/{id}/'] ?? 0,
        0,
        'custom fields are never PATCHed as a whole set',
      );
      const person = targets[0];
      await editInDms(rig.sim, person.id, {
        custom_fields: [...(rig.sim.store.getDocument(person.id)?.custom_fields ?? [])].map((cf) =>
          cf.field === NUMBER ? { ...cf, value: 'R-1' } : cf,
        ),
      });

      const res = await revert(rig.server.url, jobId);
      const event = await waitForEvent(rig.server.url, res.body.event_id as number);
      assert.equal(event.status, 'failed', JSON.stringify(event));
      assert.deepEqual(event.report?.not_restored, { edited: 1, gone: 0, refused: 0 });
      for (const d of targets.slice(1)) {
        assert.equal(
          rig.sim.store.getDocument(d.id)?.custom_fields.some((cf) => cf.field === NUMBER),
          false,
          `document ${d.id}: detached, not left empty`,
        );
      }
      assert.equal(rig.sim.store.getDocument(person.id)?.custom_fields.find((cf) => cf.field === NUMBER)?.value, 'R-1');
    } finally {
      await rig.close();
    }
  });
});
