import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Trace } from '../../server/engine/model.js';
import type { EventRecord } from '../../server/history/event-types.js';
import { API_TOKEN, call } from '../helpers/test-server.js';
import { editInDms, startJob, startRig, waitForEvent, type Rig } from './support/jobs-kit.js';

const RULES = `
rules:
  - id: telekom-title
    when:
      correspondent: Telekom Deutschland GmbH
    actions:
      - set_title: "Telekom {{ doc.created | date: '%Y-%m' }} #{{ doc.id }}"
  - id: everything
    when:
      title: { matches: "." }
    actions:
      - add_tags: [rules-processed]
  - id: betrag
    when: { document_type: Rechnung }
    actions:
      - set_custom_fields: { Betrag: 39.95 }
`;
const TELEKOM = 2;
const BETRAG = 1;

async function revert(rig: Rig, eventId: number): Promise<EventRecord> {
  const res = await call<{ event_id: number }>(rig.server.url, `/api/events/${eventId}/revert`, {
    method: 'POST',
    token: API_TOKEN,
  });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return waitForEvent(rig.server.url, res.body.event_id);
}

async function runJob(rig: Rig, query: string): Promise<EventRecord> {
  const job = await startJob(rig.server.url, query);
  assert.equal(job.status, 200, JSON.stringify(job.body));
  const done = await waitForEvent(rig.server.url, job.body.event_id as number);
  assert.equal(done.status, 'done', JSON.stringify(done));
  return done;
}

const tracesOf = async (rig: Rig, eventId: number): Promise<Trace[]> =>
  (await call<{ traces: Trace[] }>(rig.server.url, `/api/traces?event_id=${eventId}&limit=1000`, { token: API_TOKEN }))
    .body.traces;

describe('undo from the write journal', () => {
  it('restores every document a job wrote after trace retention dropped all of its traces', async () => {
    const rig = await startRig(RULES, { SVC_TRACE_RETENTION: '100' }, { generate: { count: 250, seed: 5 } });
    try {
      const telekom = [...rig.sim.store.documents.values()].filter((d) => d.correspondent === TELEKOM);
      assert.ok(telekom.length >= 3);
      const original = new Map(telekom.map((d) => [d.id, d.title]));
      const job = await runJob(rig, 'rule_id=telekom-title&dry_run=false');
      assert.equal(job.changed, telekom.length);
      // 250 newer traces push the job's out of the 100 the history keeps.
      await runJob(rig, 'rule_id=everything&dry_run=true');
      assert.equal((await tracesOf(rig, job.event_id)).length, 0, 'the job has no trace left');

      const undo = await revert(rig, job.event_id);
      assert.equal(undo.status, 'done', JSON.stringify(undo));
      assert.equal(undo.total, telekom.length);
      assert.equal(undo.changed, telekom.length);
      assert.equal(undo.report?.reverted, telekom.length);
      assert.deepEqual(undo.report?.not_restored, { edited: 0, gone: 0, refused: 0 });
      for (const d of telekom) assert.equal(rig.sim.store.getDocument(d.id)?.title, original.get(d.id));
    } finally {
      await rig.close();
    }
  });

  it('says how many documents it could not restore and why, and does not end done', async () => {
    const rig = await startRig(RULES, {}, { generate: { count: 250, seed: 5 } });
    try {
      const telekom = [...rig.sim.store.documents.values()].filter((d) => d.correspondent === TELEKOM);
      assert.ok(telekom.length >= 5);
      const original = new Map(telekom.map((d) => [d.id, d.title]));
      const job = await runJob(rig, 'rule_id=telekom-title&dry_run=false');
      const [edited, deleted, refused, ...rest] = telekom;
      await editInDms(rig.sim, edited.id, { title: 'Renamed by a person' });
      const gone = await fetch(`${rig.sim.url}/api/documents/${deleted.id}/`, {
        method: 'DELETE',
        headers: { authorization: `Token ${rig.sim.token}` },
      });
      assert.ok(gone.ok, `DELETE ${deleted.id}: ${gone.status}`);
      rig.sim.faults.inject({
        route: new RegExp(`^PATCH /api/documents/${refused.id}/$`),
        kind: 'status',
        status: 403,
      });

      const undo = await revert(rig, job.event_id);
      assert.equal(undo.status, 'failed', JSON.stringify(undo));
      assert.deepEqual(undo.report?.not_restored, { edited: 1, gone: 1, refused: 1 });
      assert.equal(undo.report?.reverted, rest.length);
      assert.equal(
        undo.error?.startsWith(
          `Restored ${rest.length} of ${telekom.length} documents; 3 not (1 edited since, 1 gone from the dms, 1 refused by the dms).`,
        ),
        true,
        undo.error ?? '',
      );
      assert.equal(rig.sim.store.getDocument(edited.id)?.title, 'Renamed by a person');
      assert.match(rig.sim.store.getDocument(refused.id)?.title ?? '', /^Telekom \d{4}-\d{2} #/);
      for (const d of rest) assert.equal(rig.sim.store.getDocument(d.id)?.title, original.get(d.id));

      const traces = await tracesOf(rig, undo.event_id);
      assert.equal(traces.length, telekom.length, 'one trace per document');
      assert.match(traces.find((t) => t.document === deleted.id)?.error ?? '', /gone from the dms/);
      assert.equal(traces.find((t) => t.document === refused.id)?.status, 'error');
    } finally {
      await rig.close();
    }
  });

  it('compares a money field by amount and currency as Paperless stores it, not as the rule wrote it', async () => {
    const rig = await startRig(RULES, {}, { generate: { count: 120, seed: 9 } });
    try {
      const betrag = (id: number) => rig.sim.store.getDocument(id)?.custom_fields.find((cf) => cf.field === BETRAG);
      const all = [...rig.sim.store.documents.values()];
      const before = new Map(all.map((d) => [d.id, betrag(d.id) ? { ...betrag(d.id) } : null]));
      const job = await runJob(rig, 'rule_id=betrag&dry_run=false');
      const changed = all.filter((d) => betrag(d.id)?.value !== before.get(d.id)?.value);
      assert.ok(changed.length >= 4);
      assert.equal(job.changed, changed.length);
      for (const d of changed)
        assert.equal(betrag(d.id)?.value, 'EUR39.95', 'Paperless holds the money with its currency');
      // The same money without its currency (Betrag's default currency is EUR), and other money.
      const [bare, dollars, ...untouched] = changed;
      const setBetrag = (id: number, value: string) =>
        editInDms(rig.sim, id, {
          custom_fields: (rig.sim.store.getDocument(id)?.custom_fields ?? []).map((cf) =>
            cf.field === BETRAG ? { field: BETRAG, value } : cf,
          ),
        });
      await setBetrag(bare.id, '39.95');
      await setBetrag(dollars.id, 'USD39.95');

      const undo = await revert(rig, job.event_id);
      assert.deepEqual(undo.report?.not_restored, { edited: 1, gone: 0, refused: 0 }, JSON.stringify(undo));
      assert.equal(undo.status, 'failed');
      for (const d of [bare, ...untouched]) {
        const was = before.get(d.id);
        if (was) assert.equal(betrag(d.id)?.value, was.value, `document ${d.id}: its amount as Paperless had it`);
        else assert.equal(betrag(d.id), undefined, `document ${d.id}: detached again`);
      }
      assert.equal(betrag(dollars.id)?.value, 'USD39.95', 'other money is a person’s edit: left');
    } finally {
      await rig.close();
    }
  });
});
