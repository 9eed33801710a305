import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Trace } from '../../server/engine/model.js';
import type { EventRecord } from '../../server/history/event-types.js';
import type { ArrivalStatus } from '../../server/runs/arrival/arrival-status.js';
import { startSimulator } from '../../tools/paperless-sim/simulator.js';
import { API_TOKEN, call, startTestServer, tempDir, type TestServer } from '../helpers/test-server.js';
import { startRig, waitForEvent, type Rig } from './support/jobs-kit.js';
import { arrivalsSettled, catchUpNow } from '../helpers/arrivals.js';

// Not idempotent on purpose: every run that writes adds one "!", so a second run of one change shows.
const BANG = `
rules:
  - id: bang
    on: [added, updated]
    when: { title: { contains: "" } }
    actions:
      - set_title: "{{ doc.title }}!"
`;

async function deliver(rig: Rig, document: number, event = 'document_updated'): Promise<number> {
  const res = await call<{ event_id: number }>(rig.server.url, '/api/webhook/dms', {
    token: API_TOKEN,
    body: { event, doc_id: String(document) },
  });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return res.body.event_id;
}

async function arrival(rig: Rig): Promise<ArrivalStatus> {
  const res = await call<{ arrival: ArrivalStatus }>(rig.server.url, '/api/health', { token: API_TOKEN });
  return res.body.arrival;
}

const tracesOfEvent = async (rig: Rig, eventId: number) =>
  (await call<{ traces: Trace[] }>(rig.server.url, `/api/traces?event_id=${eventId}`, { token: API_TOKEN })).body
    .traces;

describe('exactly once, person first', () => {
  it('a write the dms refuses is not handled: it is tried again with backoff and then written once', async () => {
    const rig = await startRig(BANG);
    try {
      const title = rig.sim.store.getDocument(4)?.title;
      // Paperless refuses the service's PATCH twice (a permission fixed meanwhile, say), then takes it.
      rig.sim.faults.inject({ route: 'PATCH /api/documents/{id}/', kind: 'status', status: 403, times: 2 });
      const eventId = await deliver(rig, 4);
      const retrying = await waitForEvent(
        rig.server.url,
        eventId,
        (e) => e.status === 'queued' && /trying again at/.test(e.error ?? ''),
      );
      assert.match(retrying.error ?? '', /tried 1 time\(s\)/);
      const done = await waitForEvent(rig.server.url, eventId);
      assert.equal(done.status, 'done', JSON.stringify(done));
      assert.equal(done.error, null);
      assert.equal(rig.sim.store.getDocument(4)?.title, `${title}!`, 'written exactly once after the refusals');
      assert.deepEqual((await arrival(rig)).failed_documents, [], 'no longer failed once applied');
    } finally {
      await rig.close();
    }
  });

  it('a write the dms keeps refusing ends failed after the bounded tries, visible in health with the dms message', async () => {
    const rig = await startRig(BANG);
    try {
      rig.sim.faults.inject({ route: 'PATCH /api/documents/{id}/', kind: 'status', status: 403 });
      const eventId = await deliver(rig, 5);
      const failed = await waitForEvent(rig.server.url, eventId);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error ?? '', /tried 6 times; run it by hand once the cause is fixed/);
      const [listed] = (await arrival(rig)).failed_documents;
      assert.equal(listed.document, 5);
      assert.equal(listed.attempts, 6);
      assert.match(listed.message, /403/);
    } finally {
      await rig.close();
    }
  });

  it("a person's change made while the service writes is not taken for the service's echo: the person's webhook runs the rules", async () => {
    const rig = await startRig(BANG);
    try {
      // Paperless answers the service's PATCH with the document read after the save: ben's correspondent is in it.
      rig.sim.duringNextWrite(6, { correspondent: 1 }, 'ben', { webhook: false });
      assert.equal((await waitForEvent(rig.server.url, await deliver(rig, 6))).status, 'done');
      const personal = await deliver(rig, 6);
      await arrivalsSettled(rig.server.url);
      const event = await call<EventRecord>(rig.server.url, `/api/events/${personal}`, { token: API_TOKEN });
      assert.equal(event.status, 200, "the person's delivery was not dropped as the service's own echo");
      assert.equal(event.body.status, 'done');
      assert.equal(
        (await tracesOfEvent(rig, personal)).length,
        1,
        "one trace of the bang rule for the person's change",
      );
    } finally {
      await rig.close();
    }
  });

  it("Paperless's audit log tells a person's change from the service's echo where the state cannot; without it the state decides, and health says which", async () => {
    const TAGGER =
      'rules:\n  - id: tax\n    on: [updated]\n    when: { title: { contains: "" } }\n    actions:\n      - add_tags: Steuer\n';
    for (const auditLog of [true, false]) {
      const rig = await startRig(TAGGER);
      try {
        rig.sim.setAuditLog(auditLog);
        const steuer = rig.sim.store.objects.tags.find((t) => t.name === 'Steuer')?.id as number;
        // While the service's tag write (as anna, the service's dms user) is held at the dms, ben adds the same tag: the state after it is exactly
        // what the service wrote, so only the audit log can say that ben changed the document too.
        const hold = rig.sim.faults.inject({ route: 'POST /api/documents/bulk_edit/', kind: 'hold', times: 1 });
        const first = await deliver(rig, 8);
        while ((rig.sim.faults.list().find((f) => f.id === hold.id)?.hits ?? 1) === 0)
          await new Promise((r) => setTimeout(r, 5));
        rig.sim.editAs(8, { tags: [...(rig.sim.store.getDocument(8)?.tags ?? []), steuer] }, 'ben', { webhook: false });
        rig.sim.faults.release(hold.id);
        assert.equal((await waitForEvent(rig.server.url, first)).status, 'done');
        const personal = await deliver(rig, 8);
        await arrivalsSettled(rig.server.url);
        const status = (await call(rig.server.url, `/api/events/${personal}`, { token: API_TOKEN })).status;
        const { attribution } = await arrival(rig);
        if (auditLog) {
          assert.equal(status, 200, "audit log: ben's change runs the rules");
          assert.equal(attribution.mode, 'audit-log');
        } else {
          assert.equal(
            status,
            404,
            'state only: the same state is taken for the echo (what a service without the audit log cannot see)',
          );
          assert.equal(attribution.mode, 'state');
          assert.match(attribution.note, /audit log is switched off/);
        }
      } finally {
        await rig.close();
      }
    }
  });

  it("a person's note while the service was stopped runs the rules that read notes at the next start", async () => {
    const NOTES =
      'rules:\n  - id: urgent\n    on: [updated]\n    when: { notes: { contains: "Bitte dringend bezahlen" } }\n    actions:\n      - add_tags: Steuer\n';
    const rig = await startRig(NOTES);
    const { dataDir, rulesDir } = rig.server;
    // The service had seen the dms before it stopped: its catch-up cursor is set (a busy machine may stop it sooner).
    while (!(await arrival(rig)).cursor) await new Promise((r) => setTimeout(r, 10));
    await rig.server.close();
    let restarted: TestServer | null = null;
    try {
      // A note fires no webhook in Paperless; it moves `modified`, so catch-up finds the document.
      rig.sim.addNoteAs(9, 'Bitte dringend bezahlen', 'ben');
      const steuer = rig.sim.store.objects.tags.find((t) => t.name === 'Steuer')?.id as number;
      restarted = await startTestServer(
        { SVC_DMS_URL: rig.sim.url, SVC_DMS_TOKEN: rig.sim.token },
        { dataDir, rulesDir },
      );
      for (let i = 0; i < 2000 && !rig.sim.store.getDocument(9)?.tags.includes(steuer); i++)
        await new Promise((r) => setTimeout(r, 10));
      assert.ok(rig.sim.store.getDocument(9)?.tags.includes(steuer), 'the rule on notes ran');
    } finally {
      await restarted?.close();
      await rig.sim.close();
    }
  });

  it("the link Paperless mirrors onto a document's target is the service's own change: catch-up does not run the target's rules for it", async () => {
    const sim = await startSimulator();
    let server: TestServer | null = null;
    try {
      const created = await fetch(`${sim.url}/api/custom_fields/`, {
        method: 'POST',
        headers: { authorization: `Token ${sim.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Siehe auch', data_type: 'documentlink' }),
      });
      const field = ((await created.json()) as { id: number }).id;
      const [a, b] = [sim.store.getDocument(3)!.title, sim.store.getDocument(8)!.title];
      // The link rule writes document 3; the bang rule is not idempotent, so any second run of document 8 shows.
      const rulesDir = tempDir('dms-rules-links-');
      fs.writeFileSync(
        path.join(rulesDir, 'links.yml'),
        `rules:
  - id: link
    on: [added, updated]
    when: { title: { equals: ${JSON.stringify(a)} } }
    actions:
      - set_custom_fields: { "Siehe auch": "8" }
  - id: bang
    on: [added, updated]
    when: { title: { starts_with: ${JSON.stringify(b)} } }
    actions:
      - set_title: "{{ doc.title }}!"
`,
      );
      server = await startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token }, { rulesDir });
      const rig: Rig = { sim, server, close: async () => {} };
      assert.equal((await waitForEvent(server.url, await deliver(rig, 8))).status, 'done');
      assert.equal(sim.store.getDocument(8)!.title, `${b}!`);
      assert.equal((await waitForEvent(server.url, await deliver(rig, 3))).status, 'done');
      assert.deepEqual(
        sim.store.getDocument(8)!.custom_fields.find((cf) => cf.field === field)?.value,
        [3],
        'Paperless mirrored the link onto document 8 (its modified moved, no webhook)',
      );

      for (let pass = 0; pass < 2; pass++) await catchUpNow(server);
      assert.equal(
        sim.store.getDocument(8)!.title,
        `${b}!`,
        "document 8's rules did not run again for the mirrored link",
      );
      assert.ok(
        server.logs.some((line) =>
          /document 8: the link from document 3 mirrored onto it is the service's own change/.test(line),
        ),
      );

      // A person's change to the target afterwards still runs its rules.
      sim.editAs(8, { archive_serial_number: 4711 }, 'ben', { webhook: false });
      await catchUpNow(server);
      assert.equal(sim.store.getDocument(8)!.title, `${b}!!`, "a person's change to the target runs its rules");
    } finally {
      await server?.close();
      await sim.close();
    }
  });
});
