import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DmsHistoryEntry } from '../../server/dms/types.js';
import type { Trace } from '../../server/engine/model.js';
import { API_TOKEN, call } from '../helpers/test-server.js';
import { startReceiver } from './support/notify-kit.js';
import { bulkEdits, emulateWorkflow, settle, startJob, startRig, waitForEvent, type Rig } from './support/jobs-kit.js';

// Not idempotent on purpose: a run on the service's own echo would add a second "+".
const NOTE_AND_AMOUNT = `
rules:
  - id: checked
    on: [updated]
    when: { title: { contains: "" } }
    actions:
      - add_note: "Geprüft"
      - set_custom_fields: { Betrag: "12.50" }
      - set_title: "{{ doc.title }}+"
      - notify: { to: hook, when: always, message: "Document {{ doc.id }} checked" }
`;

async function history(rig: Rig, id: number): Promise<DmsHistoryEntry[]> {
  const res = await fetch(`${rig.sim.url}/api/documents/${id}/history/`, {
    headers: { authorization: `Token ${rig.sim.token}` },
  });
  return (await res.json()) as DmsHistoryEntry[];
}

describe("the service's own writes logged with no actor", () => {
  it('a note and a bulk custom-field value the service wrote run nothing again: one run, one "+"', async () => {
    const receiver = await startReceiver();
    const rig = await startRig(
      NOTE_AND_AMOUNT,
      {},
      {},
      {
        notifyTargets: { hook: { kind: 'http', url: `${receiver.url}/hook`, format: 'json', headers: {} } },
      },
    );
    try {
      // Paperless's "Document Updated" workflow with a webhook action: every write of the service echoes back.
      emulateWorkflow(rig, { echoDelayMs: 0 });
      const title = rig.sim.store.getDocument(10)?.title;
      rig.sim.editAs(10, { archive_serial_number: 4242 }, 'ben'); // a person's edit: its webhook runs the rule
      await settle(rig);

      const doc = rig.sim.store.getDocument(10);
      assert.equal(doc?.title, `${title}+`, 'the rule ran once: its echoes were recognised');
      assert.deepEqual(
        doc?.notes.map((n) => n.note),
        ['Geprüft'],
      );
      const entries = await history(rig, 10);
      // The premise, as Paperless logs a token request: the note and the bulk value name no actor.
      assert.ok(
        entries.some((e) => 'Note Added' in e.changes && e.actor === null),
        JSON.stringify(entries),
      );
      assert.ok(
        entries.some((e) => 'custom_fields' in e.changes && e.actor === null),
        JSON.stringify(entries),
      );
      const traces = (
        await call<{ traces: Trace[] }>(rig.server.url, '/api/traces?document=10&rule_id=checked', { token: API_TOKEN })
      ).body.traces;
      assert.equal(traces.filter((t) => t.status === 'matched').length, 1, "one trace: the person's change");
      assert.equal(receiver.received.length, 1, 'one `always` notification: the echoes sent nothing');
    } finally {
      await rig.close();
      await receiver.close();
    }
  });

  it("a person's edit landing with a job's bulk edit runs the rules: the read-back is not taken as the job's own", async () => {
    const rig = await startRig(
      `
rules:
  - id: stamp
    when: { document_type: Rechnung }
    actions:
      - add_tags: [rules-processed]
  - id: asn
    on: [updated]
    when: { archive_serial_number: { equals: 4242 } }
    actions:
      - set_title: "{{ doc.title }} (ASN)"
`,
      {},
      { generate: { count: 40, seed: 11 } },
    );
    try {
      emulateWorkflow(rig, { echoDelayMs: 0 });
      const invoices = [...rig.sim.store.documents.values()].filter(
        (d) => d.document_type === 1 && !d.tags.includes(9),
      );
      assert.ok(invoices.length >= 3, 'the job writes a bulk group');
      const person = invoices[1];
      const title = person.title;
      // Ben's edit lands after the bulk edit's save and before its answer: the job's read-back sees it.
      rig.sim.duringNextWrite(person.id, { archive_serial_number: 4242 }, 'ben');
      const job = await startJob(rig.server.url, 'rule_id=stamp&dry_run=false');
      await waitForEvent(rig.server.url, job.body.event_id as number);
      await settle(rig);

      assert.ok(bulkEdits(rig.sim) >= 1, 'the tag went by bulk edit');
      assert.equal(rig.sim.store.getDocument(person.id)?.title, `${title} (ASN)`, "Ben's edit ran the rules");
    } finally {
      await rig.close();
    }
  });
});
