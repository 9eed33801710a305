import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventRecord } from '../../server/history/event-types.js';
import { arrivalsSettled } from '../helpers/arrivals.js';
import { API_TOKEN, call } from '../helpers/test-server.js';
import {
  bulkEdits,
  editInDms,
  emulateWorkflow,
  patches,
  settle,
  startJob,
  startRig,
  waitForEvent,
  type Rig,
} from './support/jobs-kit.js';

const PROCESSED = 9;

async function webhookEvents(rig: Rig): Promise<EventRecord[]> {
  return (
    await call<{ events: EventRecord[] }>(rig.server.url, '/api/events?kind=webhook&limit=1000', { token: API_TOKEN })
  ).body.events;
}

describe('webhook loop safety', () => {
  it('a rule set that would loop forever ends after one write: its echo is recognised', async () => {
    const rig = await startRig(`
rules:
  - id: stamp
    on: [updated]
    when: { not: { tags: { any: [rules-processed] } } }
    actions:
      - add_tags: [rules-processed]
  - id: bump
    on: [updated]
    when: { correspondent: Telekom Deutschland GmbH }
    actions:
      - set_title: "{{ doc.title }}!"
`);
    try {
      emulateWorkflow(rig, { echoDelayMs: 0 });
      const original = rig.sim.store.getDocument(10)?.title;
      rig.sim.resetCounts();
      await editInDms(rig.sim, 10, { archive_serial_number: 4242 }); // a person edits the document
      await settle(rig);

      assert.equal(patches(rig.sim), 2, 'the person’s PATCH and exactly one by the service');
      assert.equal(rig.sim.store.getDocument(10)?.title, `${original}!`);
      assert.ok(rig.sim.store.getDocument(10)?.tags.includes(PROCESSED));
      const stats = rig.sim.webhookStats();
      // The service writes the title by PATCH and the tag by bulk modify_tags (never a stale whole tag set);
      // Paperless sends "document updated" for each, so its write echoes twice.
      assert.equal(bulkEdits(rig.sim), 1, 'the tag went by bulk modify_tags');
      assert.equal(
        stats.delivered,
        3,
        'one webhook for the person’s edit, one echo per request of the service’s write',
      );
      const events = await webhookEvents(rig);
      assert.equal(events.length, 1, 'the echo ran nothing');
      assert.ok(rig.server.logs.some((l) => l.includes('its own echo')));
    } finally {
      await rig.close();
    }
  });

  // Both real release lines: Paperless 2.20 (API 9) and 3.0 (API 10) send the same late Celery echoes. Held
  // until the service's run has ended, the echoes come as late as any clock could make them, without waiting for one.
  for (const profile of ['3.0', '2.20'] as const) {
    it(`a non-idempotent rule triggered by a person's edit writes exactly once when every echo comes after the run has ended (Paperless ${profile})`, async () => {
      const rig = await startRig(
        `
rules:
  - id: bump
    on: [updated]
    when: { correspondent: Telekom Deutschland GmbH }
    actions:
      - set_title: "{{ doc.title }}!"
      - add_note: "checked {{ now }}"
`,
        {},
        { profile },
      );
      try {
        emulateWorkflow(rig, { hold: true });
        const original = rig.sim.store.getDocument(10)?.title;
        const notes = rig.sim.store.getDocument(10)?.notes.length ?? 0;
        rig.sim.resetCounts();
        await editInDms(rig.sim, 10, { archive_serial_number: 4343 });
        assert.equal(rig.sim.releaseWebhooks(), 1, "the person's webhook");
        await rig.sim.webhooksIdle();
        await arrivalsSettled(rig.server.url);
        assert.equal(rig.sim.store.getDocument(10)?.title, `${original}!`, 'the run ended before its echoes');
        assert.ok(rig.sim.releaseWebhooks() >= 1, "the service's write echoes");
        await settle(rig);
        // A late redelivery of the service's own state (Paperless retries identical payloads) runs nothing either.
        const late = await call<{ event_id: number }>(rig.server.url, '/api/webhook/dms', {
          token: API_TOKEN,
          body: { event: 'document_updated', doc_id: '10' },
        });
        await settle(rig);
        assert.equal(
          (await call(rig.server.url, `/api/events/${late.body.event_id}`, { token: API_TOKEN })).status,
          404,
        );
        assert.equal(rig.sim.store.getDocument(10)?.title, `${original}!`, 'the title grew once');
        assert.equal(rig.sim.store.getDocument(10)?.notes.length, notes + 1, 'one note');
        assert.equal(patches(rig.sim), 2, 'the person’s PATCH and exactly one by the service');
        assert.equal((await webhookEvents(rig)).length, 1, 'only the person’s edit ran the rules');
      } finally {
        await rig.close();
      }
    });
  }

  it('the loop breaker stops a fight with another automation after SVC_LOOP_MAX_WRITES writes, and its trace says so', async () => {
    const rig = await startRig(
      `
rules:
  - id: bump
    on: [updated]
    when: { correspondent: Telekom Deutschland GmbH }
    actions:
      - set_title: "{{ doc.title }}!"
`,
      { SVC_LOOP_MAX_WRITES: '3' },
    );
    try {
      emulateWorkflow(rig);
      rig.sim.resetCounts();
      // Another automation answers every write of the service with its own edit: each echo is a new state.
      for (let round = 0; round < 5; round++) {
        await editInDms(rig.sim, 10, { archive_serial_number: 5000 + round });
        await settle(rig);
      }
      assert.equal(patches(rig.sim), 5 + 3, 'five edits by the other side, three writes by the service');
      const traces = (
        await call<{ traces: Array<{ status: string; error: string | null }> }>(
          rig.server.url,
          '/api/traces?document=10&limit=50',
          { token: API_TOKEN },
        )
      ).body.traces;
      assert.ok(
        traces.some((t) => t.status === 'error' && (t.error ?? '').includes('Loop breaker')),
        JSON.stringify(traces.map((t) => t.error)),
      );
      // A person asks for a manual run: the document may be written again.
      const manual = await call(rig.server.url, '/api/run?document=10&rule_id=bump&dry_run=false', {
        method: 'POST',
        token: API_TOKEN,
      });
      assert.equal(manual.status, 200, JSON.stringify(manual.body));
      assert.equal(patches(rig.sim), 9);
    } finally {
      await rig.close();
    }
  });

  it("a real job’s bulk edits fire one webhook per document, each recognised as the job's own echo", async () => {
    const rig = await startRig(
      `
rules:
  - id: stamp
    when: { document_type: Rechnung }
    actions:
      - add_tags: [rules-processed]
`,
      {},
      { generate: { count: 120, seed: 11 } },
    );
    try {
      emulateWorkflow(rig);
      const invoices = [...rig.sim.store.documents.values()].filter(
        (d) => d.document_type === 1 && !d.tags.includes(PROCESSED),
      ).length;
      rig.sim.resetCounts();
      const job = await startJob(rig.server.url, 'rule_id=stamp&dry_run=false');
      const done = await waitForEvent(rig.server.url, job.body.event_id as number);
      assert.equal(done.changed, invoices);
      await settle(rig);
      const writes = patches(rig.sim) + bulkEdits(rig.sim);
      assert.ok(writes >= 1 && writes <= Math.ceil(invoices / 100) + 1, `only the job's own bulk edits, got ${writes}`);
      assert.ok(rig.sim.webhookStats().delivered <= invoices, 'at most one webhook per changed document');
      const queued = await call<{ events: unknown[] }>(rig.server.url, '/api/events?kind=webhook', {
        token: API_TOKEN,
      });
      assert.equal(queued.body.events.length, 0, "no echo of the job's own writes was queued as a webhook run");
    } finally {
      await rig.close();
    }
  });
});
