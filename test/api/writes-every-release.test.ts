import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import type { Trace } from '../../server/engine/model.js';
import type { EventRecord } from '../../server/history/event-types.js';
import { PROFILES, behaviourOfProfile, releaseOf } from '../helpers/profiles.js';
import { API_TOKEN, call, type TestServer } from '../helpers/test-server.js';
import { bulkEdits, editInDms, patches, startJob, waitForEvent } from './support/jobs-kit.js';
import { runReal, serverWithRules, tracesOf as tracesOfDocument } from './support/real-run-kit.js';
import { arrivalsSettled, catchUpNow } from '../helpers/arrivals.js';

// The writing scenarios on every release profile, one simulator and one service per profile: a run, a job (dry
// report, applied, then nothing left), its undo, custom fields with document links and empty values, notes, the tag tree,
// and a person's change found by catch-up and by the workflow webhook.
// Seed: invoices (type Rechnung) 1, 2, 5, 10 (5 holds tags 4 and 5); tag 5 "Steuer 2025" is a child of 4 "Steuer"
// from 2.19.0; Telekom documents 2 and 10, of which 2 holds Rechnungsnummer (field 4); 7 is the scan, 8 the lease,
// 4 holds only "Steuer", 13 holds "Steuer" and "Steuer 2025", 3 is the car insurance policy, 12 a receipt (tag 8).

const RULES = `
rules:
  - id: file-invoices
    on: [manual]
    when: { document_type: Rechnung }
    actions:
      - add_tags: [Steuer 2025]
      - add_permissions: { view: { groups: [Family] } }
  - id: telekom-fields
    on: [manual]
    when: { correspondent: Telekom Deutschland GmbH }
    actions:
      - add_custom_fields: [Siehe auch]
      - set_custom_fields: { Rechnungsnummer: "" }
  - id: scan-sees-lease
    on: [manual]
    when: { original_file_name: { starts_with: Scan_ } }
    actions:
      - set_custom_fields: { Siehe auch: 8 }
      - add_note: Zum Mietvertrag
  - id: scan-sees-missing
    on: [manual]
    when: { original_file_name: { starts_with: Scan_ } }
    actions:
      - set_custom_fields: { Siehe auch: 999 }
  - id: tax-year
    on: [manual]
    when: { title: { starts_with: Einkommensteuerbescheid } }
    actions:
      - set_tags: [Steuer 2025]
  - id: untax
    on: [manual]
    when: { title: { starts_with: Vorauszahlungsbescheid } }
    actions:
      - remove_tags: [Steuer]
  - id: receipt-filing
    on: [manual]
    when: { original_file_name: { starts_with: receipt_ } }
    actions:
      - add_tags: [Steuer 2025]
      - set_custom_fields: { Rechnungsnummer: R-1, Siehe auch: "" }
  - id: license-review
    on: [manual]
    when: { title: { starts_with: Software License } }
    actions:
      - add_custom_fields: [Siehe auch]
      - set_custom_fields: { Rechnungsnummer: L-1 }
  - id: policy-checked
    on: [updated]
    when: { title: { starts_with: Kfz } }
    actions:
      - set_title: "{{ doc.title }}!"
`;

const INVOICES = [1, 2, 5, 10];
const TELEKOM = [2, 10];

for (const profile of PROFILES) {
  const is = behaviourOfProfile(profile);
  describe(`writing on Paperless-ngx ${releaseOf(profile)} (profile ${profile})`, () => {
    let sim: Simulator;
    let server: TestServer;
    let link: number;
    const doc = (id: number) => sim.store.getDocument(id)!;
    const fields = (id: number) =>
      Object.fromEntries(doc(id).custom_fields.map((cf) => [cf.field, cf.value])) as Record<number, unknown>;
    const writes = () => patches(sim) + bulkEdits(sim);
    const job = async (query: string): Promise<EventRecord> => {
      const res = await startJob(server.url, query);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return waitForEvent(server.url, res.body.event_id as number);
    };
    const tracesOf = async (eventId: number) =>
      (await call<{ traces: Trace[] }>(server.url, `/api/traces?event_id=${eventId}`, { token: API_TOKEN })).body
        .traces;
    const viewGroups = async (id: number) => {
      const res = await fetch(`${sim.url}/api/documents/${id}/?full_perms=true`, {
        headers: { authorization: `Token ${sim.token}` },
      });
      return ((await res.json()) as { permissions: { view: { groups: number[] } } }).permissions.view.groups;
    };

    before(async () => {
      sim = await startSimulator({ profile });
      link = sim.store.insertObject('custom_fields', {
        name: 'Siehe auch',
        data_type: 'documentlink',
        extra_data: { select_options: [], default_currency: null },
      }).id;
      server = await serverWithRules(sim, sim.token, RULES);
    });
    after(async () => {
      await server?.close();
      await sim?.close();
    });

    it(`a run stores an emptied link with another field ${is.bulkNullLinkFails ? '(one PATCH: the bulk edit would fail half-way on this release)' : 'in one bulk edit'} and the tag ${is.tagHierarchy ? 'with its parent' : 'alone'}; a second run writes nothing`, async () => {
      doc(12).custom_fields.push({ field: link, value: [8] });
      const res = await runReal(server, 12);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(
        res.body.traces
          .filter((t) => !['not_matched', 'skipped'].includes(t.status))
          .map((t) => [t.rule_id, t.status, t.error]),
        [['receipt-filing', 'matched', null]],
      );
      assert.deepEqual(fields(12), { 1: 'USD23.33', 4: 'R-1', [link]: null });
      assert.deepEqual([...doc(12).tags].sort(), is.tagHierarchy ? [4, 5, 8] : [5, 8]);
      sim.resetCounts();
      assert.equal((await runReal(server, 12)).status, 200);
      assert.equal(writes(), 0, JSON.stringify(sim.counts()));
    });

    it(`a job: the dry run reports and writes nothing, the real one writes the tag ${is.tagHierarchy ? 'with its parent' : 'alone'} and the share, a second writes nothing; undo restores both`, async () => {
      const tagsBefore = new Map(INVOICES.map((id) => [id, [...doc(id).tags].sort()]));
      sim.resetCounts();
      const dry = await job('rule_id=file-invoices');
      assert.equal(dry.status, 'done', JSON.stringify(dry));
      assert.equal(dry.changed, INVOICES.length);
      assert.equal(dry.report?.fields.tags, 3, 'document 5 holds the tag already');
      assert.equal(writes(), 0, 'a dry run writes nothing');

      const real = await job('rule_id=file-invoices&dry_run=false');
      assert.deepEqual([real.status, real.changed, real.errors], ['done', INVOICES.length, 0], JSON.stringify(real));
      for (const id of INVOICES) {
        assert.deepEqual(
          doc(id)
            .tags.filter((t) => t === 4 || t === 5)
            .sort(),
          is.tagHierarchy || id === 5 ? [4, 5] : [5],
          `document ${id}`,
        );
        assert.deepEqual(await viewGroups(id), [1], `document ${id} is shared with Family`);
      }
      sim.resetCounts();
      const again = await job('rule_id=file-invoices&dry_run=false');
      assert.deepEqual([again.status, again.changed], ['done', 0]);
      assert.equal(writes(), 0, JSON.stringify(sim.counts()));

      const undo = await call<{ event_id: number }>(server.url, `/api/events/${real.event_id}/revert`, {
        method: 'POST',
        token: API_TOKEN,
      });
      assert.equal(undo.status, 202, JSON.stringify(undo.body));
      const undone = await waitForEvent(server.url, undo.body.event_id);
      assert.deepEqual([undone.status, undone.errors], ['done', 0], JSON.stringify(undone));
      for (const id of INVOICES) {
        assert.deepEqual([...doc(id).tags].sort(), tagsBefore.get(id), `document ${id}: tags as before the job`);
        assert.deepEqual(await viewGroups(id), [], `document ${id}: no longer shared`);
      }
    });

    it(`custom fields: an empty link attached and a field cleared ${is.bulkNullLinkFails ? '(one PATCH per document: this release fails the bulk edit on an empty link)' : 'in one bulk edit'}; a second job writes nothing; undo puts both back`, async () => {
      sim.resetCounts();
      const real = await job('rule_id=telekom-fields&dry_run=false');
      assert.deepEqual([real.status, real.changed, real.errors], ['done', TELEKOM.length, 0], JSON.stringify(real));
      // Document 10 had no Rechnungsnummer: clearing a field that is not attached leaves it off.
      assert.deepEqual(fields(2), { 1: 'EUR39.95', 2: '2025-02-18', 3: 'Kq3ZP8rWmTn2xYbD', 4: null, [link]: null });
      assert.deepEqual(fields(10), { [link]: null });
      assert.equal(patches(sim) > 0, is.bulkNullLinkFails, JSON.stringify(sim.counts()));

      sim.resetCounts();
      const again = await job('rule_id=telekom-fields&dry_run=false');
      assert.deepEqual([again.changed, writes()], [0, 0], JSON.stringify(sim.counts()));

      const undo = await call<{ event_id: number }>(server.url, `/api/events/${real.event_id}/revert`, {
        method: 'POST',
        token: API_TOKEN,
      });
      const undone = await waitForEvent(server.url, undo.body.event_id);
      assert.deepEqual([undone.status, undone.errors], ['done', 0], JSON.stringify(undone));
      assert.deepEqual(fields(2), { 1: 'EUR39.95', 2: '2025-02-18', 3: 'Kq3ZP8rWmTn2xYbD', 4: 'T-0417-2025-02' });
      assert.deepEqual(fields(10), {});
    });

    it(`a document link and a note are written and the link mirrored; a link to a missing document fails in the trace and stores nothing, run after run; undo empties the link again${is.bulkNullLinkFails ? ' (by PATCH on this release)' : ''}`, async () => {
      doc(7).custom_fields = [{ field: link, value: null }];
      const linked = await job('rule_id=scan-sees-lease&dry_run=false');
      assert.deepEqual([linked.status, linked.changed, linked.errors], ['done', 1, 0], JSON.stringify(linked));
      assert.deepEqual(fields(7), { [link]: [8] });
      assert.deepEqual(fields(8), { [link]: [7] }, 'Paperless mirrors the link onto its target');
      assert.deepEqual(
        doc(7).notes.map((n) => n.note),
        ['Zum Mietvertrag'],
      );

      for (const round of [1, 2]) {
        sim.resetCounts();
        const missing = await job('rule_id=scan-sees-missing&dry_run=false');
        assert.deepEqual([missing.status, missing.errors], ['done', 1], `round ${round}: ${JSON.stringify(missing)}`);
        const trace = (await tracesOf(missing.event_id)).find((t) => t.document === 7);
        assert.equal(trace?.status, 'error', JSON.stringify(trace));
        assert.match(
          JSON.stringify(trace),
          is.linkTargetsChecked
            ? /don't exist or were specified twice/
            : /names document 999, which the dms does not have/,
        );
        assert.deepEqual(fields(7), { [link]: [8] }, `round ${round}: no dangling link was stored`);
        assert.equal(bulkEdits(sim), is.linkTargetsChecked ? 1 : 0, 'up to 2.20.12 nothing is sent');
      }

      const undo = await call<{ event_id: number }>(server.url, `/api/events/${linked.event_id}/revert`, {
        method: 'POST',
        token: API_TOKEN,
      });
      const undone = await waitForEvent(server.url, undo.body.event_id);
      assert.deepEqual([undone.status, undone.errors], ['done', 0], JSON.stringify(undone));
      assert.deepEqual(fields(7), { [link]: null }, 'the link is empty again, still attached');
      // A bulk edit stores the new value before `reflect_doclinks` looks for dropped targets, so the lease keeps its
      // mirror (bulk_edit.py:322-329 at v3.0.5, the same from 2.16); a PATCH reflects first and drops it.
      assert.deepEqual(fields(8), { [link]: is.bulkNullLinkFails ? [] : [7] }, 'the mirror as Paperless leaves it');
      assert.deepEqual(
        doc(7).notes.map((n) => n.note),
        ['Zum Mietvertrag'],
        'undo never removes a note',
      );
    });

    it(`a document whose other link names a trashed document: ${is.bulkNullLinkFails ? 'nothing is written and the trace says which link blocks it (this release can store an empty link only by resending every field)' : 'the empty link and the other field are written, the old link left alone'}`, async () => {
      const before = sim.store.insertObject('custom_fields', {
        name: 'Vorgänger',
        data_type: 'documentlink',
        extra_data: { select_options: [], default_currency: null },
      }).id;
      const old = sim.addDocument({ title: 'Alter Lizenzvertrag', tags: [] }).id;
      doc(9).custom_fields = [{ field: before, value: [old] }];
      const trashed = await fetch(`${sim.url}/api/documents/${old}/`, {
        method: 'DELETE',
        headers: { authorization: `Token ${sim.token}` },
      });
      assert.equal(trashed.status, 204);
      const res = await runReal(server, 9);
      const trace = (await tracesOfDocument(server, 9)).find((t) => t.rule_id === 'license-review');
      if (is.bulkNullLinkFails) {
        assert.equal(trace?.status, 'error', JSON.stringify(res.body));
        assert.match(
          trace.error ?? '',
          new RegExp(`"Vorgänger" links to document ${old}, which the dms does not have`),
        );
        assert.deepEqual(fields(9), { [before]: [old] }, 'nothing written');
      } else {
        assert.equal(trace?.status, 'matched', JSON.stringify(res.body));
        assert.deepEqual(fields(9), { [before]: [old], 4: 'L-1', [link]: null });
      }
    });

    it(`the tag tree: "set_tags: [Steuer 2025]" on a document holding Steuer ${is.tagHierarchy ? 'keeps the parent' : 'replaces it (no tree before 2.19)'}; removing Steuer ${is.tagHierarchy ? 'takes its child too' : 'leaves the child'}; a second run writes nothing`, async () => {
      const setTags = await job('rule_id=tax-year&dry_run=false');
      assert.deepEqual([setTags.status, setTags.errors], ['done', 0], JSON.stringify(setTags));
      assert.deepEqual([...doc(4).tags].sort(), is.tagHierarchy ? [4, 5] : [5]);
      const untax = await job('rule_id=untax&dry_run=false');
      assert.deepEqual([untax.status, untax.errors], ['done', 0], JSON.stringify(untax));
      assert.deepEqual([...doc(13).tags].sort(), is.tagHierarchy ? [1] : [1, 5]);
      sim.resetCounts();
      for (const rule of ['tax-year', 'untax'])
        assert.equal((await job(`rule_id=${rule}&dry_run=false`)).changed, 0, rule);
      assert.equal(writes(), 0, JSON.stringify(sim.counts()));
    });

    it("catch-up runs a person's change once, and the workflow webhook (with doc_url only before 3.0) runs the next one once", async () => {
      const title = doc(3).title;
      await editInDms(sim, 3, { title: `${title} A` });
      const caught = await catchUpNow(server);
      assert.deepEqual([caught?.status, caught?.changed], ['done', 1], JSON.stringify(caught));
      assert.equal(doc(3).title, `${title} A!`);
      assert.equal((await catchUpNow(server))?.changed, 0, 'the own write is not run again');

      sim.setWorkflowWebhook({
        url: `${server.url}/api/webhook/dms`,
        headers: { Authorization: `Bearer ${API_TOKEN}` },
        triggers: ['updated'],
        shape: 'json',
        retryBaseMs: 10,
        echoDelayMs: 0,
      });
      try {
        sim.resetCounts();
        await editInDms(sim, 3, { title: `${title} B` });
        // The person's webhook is delivered and run; then the echo of the service's write is delivered, recognised
        // and not run again. Each step waits for the queue it fills, not for a time.
        for (const step of ['person', 'echo']) {
          await sim.webhooksIdle();
          await arrivalsSettled(server.url);
          assert.equal(doc(3).title, `${title} B!`, step);
        }
        assert.deepEqual([sim.webhookStats().delivered, sim.webhookStats().failed], [2, 0]);
        assert.equal(patches(sim), 2, "the person's PATCH and one by the service");
      } finally {
        sim.setWorkflowWebhook(null);
      }
    });
  });
}
