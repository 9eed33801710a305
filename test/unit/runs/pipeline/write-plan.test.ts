import '../../../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPaperlessClient } from '../../../../server/dms/paperless-client.js';
import { startSimulator, type Simulator } from '../../../../tools/paperless-sim/simulator.js';
import type { DmsClient } from '../../../../server/dms/types.js';
import type { RuleDefinition } from '../../../../server/engine/engine.js';
import { loadedRule } from '../../../helpers/loaded-rule.js';
import { writePlan } from '../../../../server/runs/pipeline/write-plan.js';
import { inlineEvaluator } from '../../../../server/eval/eval-pool.js';
import { documentContext, evaluateAndPlan } from '../../../../server/runs/pipeline/evaluate-document.js';
import { isEmptyPlan } from '../../../../server/runs/pipeline/plan-changes.js';

// Seed: tag 3 bezahlt, 4 Steuer ─ 5 Steuer 2025, 9 rules-processed; custom fields 1 Betrag, 4 Rechnungsnummer.

// Both release lines store tags and custom fields the same way (2.20 and 3.0: hierarchy, bulk modify_*).
for (const profile of ['3.0', '2.20'] as const) {
  describe(`writing a plan to the dms (simulator over HTTP, Paperless ${profile})`, () => {
    let sim: Simulator;
    let dms: DmsClient;
    let person: DmsClient;
    before(async () => {
      sim = await startSimulator({ profile });
      dms = createPaperlessClient({ url: sim.url, token: sim.token });
      person = createPaperlessClient({ url: sim.url, token: sim.token });
    });
    after(async () => {
      await dms.close();
      await person.close();
      await sim.close();
    });

    const plan = async (id: number, def: RuleDefinition) => {
      const doc = await dms.getDocument(id);
      const rules = [loadedRule(def)];
      const context = await documentContext(dms, doc, rules);
      return evaluateAndPlan(inlineEvaluator(), doc, context, rules, 'manual', new Date('2025-03-15T12:00:00Z'));
    };

    test("a person's tag and custom-field value added between the read and the write survive it", async () => {
      const { plan: p } = await plan(7, {
        id: 'r',
        actions: [{ add_tags: ['rules-processed'] }, { set_custom_fields: { Rechnungsnummer: 'R-7' } }],
      });
      // The person edits the document after the rules read it.
      const now = await person.getDocument(7);
      await person.updateDocument(7, {
        tags: [...now.tags, 3],
        custom_fields: [...now.custom_fields, { field: 1, value: 'EUR12.00' }],
      });

      const outcome = await writePlan(dms, p);
      assert.deepEqual(outcome.failures, {});
      assert.deepEqual(outcome.written.sort(), ['custom_fields', 'tags']);
      const stored = sim.store.getDocument(7)!;
      assert.ok(stored.tags.includes(3), "the person's tag is still there");
      assert.ok(stored.tags.includes(9), "the rule's tag was added");
      assert.deepEqual(
        stored.custom_fields.find((cf) => cf.field === 1)?.value,
        'EUR12.00',
        "the person's value is still there",
      );
      assert.deepEqual(stored.custom_fields.find((cf) => cf.field === 4)?.value, 'R-7');
    });

    test('a title a person changed since the read is left as they set it, and the outcome says why', async () => {
      const { plan: p } = await plan(8, {
        id: 'r',
        actions: [{ set_title: 'Vom Regelwerk' }, { add_tags: ['bezahlt'] }],
      });
      await person.updateDocument(8, { title: 'Von Hand' });
      const outcome = await writePlan(dms, p);
      assert.equal(sim.store.getDocument(8)?.title, 'Von Hand');
      assert.ok(sim.store.getDocument(8)?.tags.includes(3));
      assert.match(outcome.superseded.title ?? '', /title was changed in the dms after the rules read the document/);
      assert.deepEqual(outcome.written, ['tags']);
    });

    test('a change a person already made since the read is not written again, and the outcome says so', async () => {
      const { plan: p } = await plan(2, { id: 'r', actions: [{ add_tags: ['Vertrag'] }] });
      const now = await person.getDocument(2);
      await person.updateDocument(2, { tags: [...now.tags, 6] });
      sim.resetCounts();
      const outcome = await writePlan(dms, p);
      assert.deepEqual(outcome.written, []);
      assert.match(outcome.superseded.tags ?? '', /already is as the rules want it/);
      assert.equal(sim.counts()['POST /api/documents/bulk_edit/'] ?? 0, 0);
    });

    test('a document with a dangling document link gets its other custom fields written and keeps the link', async () => {
      const field = await fetch(`${sim.url}/api/custom_fields/`, {
        method: 'POST',
        headers: { authorization: `Token ${sim.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Vorgänger', data_type: 'documentlink' }),
      }).then((r) => r.json() as Promise<{ id: number }>);
      await dms.vocabulary({ refresh: true });
      const doc = await person.getDocument(12);
      await person.updateDocument(12, { custom_fields: [...doc.custom_fields, { field: field.id, value: [13] }] });
      sim.store.documents.delete(13); // the linked document goes to the trash

      const { plan: p } = await plan(12, { id: 'r', actions: [{ set_custom_fields: { Rechnungsnummer: 'R-12' } }] });
      const outcome = await writePlan(dms, p);
      assert.deepEqual(outcome.failures, {});
      const stored = sim.store.getDocument(12)!;
      assert.deepEqual(stored.custom_fields.find((cf) => cf.field === 4)?.value, 'R-12');
      assert.deepEqual(stored.custom_fields.find((cf) => cf.field === field.id)?.value, [13], 'the link is kept');
    });

    test('tags end as Paperless stores them: a child brings its parent, the trace says so, and a second run writes nothing', async () => {
      const rule: RuleDefinition = { id: 'r', actions: [{ add_tags: ['Steuer 2025'] }] };
      const first = await plan(6, rule);
      assert.match(first.evaluation.results[0].actions[0].detail ?? '', /the dms also adds the parent tags: Steuer/);
      assert.deepEqual(first.evaluation.results[0].changes.tags.to, [
        ...(first.evaluation.results[0].changes.tags.from as string[]),
        'Steuer 2025',
        'Steuer',
      ]);
      await writePlan(dms, first.plan);
      assert.ok(sim.store.getDocument(6)!.tags.includes(4) && sim.store.getDocument(6)!.tags.includes(5));
      assert.ok(isEmptyPlan((await plan(6, rule)).plan), 'the second run plans nothing');
    });

    test('set_tags [child] on a document holding parent and child keeps both and is stable', async () => {
      await person.updateDocument(5, { tags: [4, 5, 3] });
      const rule: RuleDefinition = { id: 'r', actions: [{ set_tags: ['Steuer 2025'] }] };
      const first = await plan(5, rule);
      assert.deepEqual(first.plan.tags, { add: [], remove: [3] });
      await writePlan(dms, first.plan);
      assert.deepEqual([...sim.store.getDocument(5)!.tags].sort(), [4, 5]);
      assert.ok(isEmptyPlan((await plan(5, rule)).plan));
    });

    test('remove_tags on a parent removes the tags below it, as the dms will', async () => {
      await person.updateDocument(4, { tags: [4, 5, 9] }); // parent Steuer, its child Steuer 2025, rules-processed
      const { evaluation, plan: p } = await plan(4, { id: 'r', actions: [{ remove_tags: ['Steuer'] }] });
      assert.deepEqual(evaluation.results[0].changes.tags.to, ['rules-processed']);
      assert.match(evaluation.results[0].actions[0].detail ?? '', /removes the tags below: Steuer 2025/);
      await writePlan(dms, p);
      assert.deepEqual(sim.store.getDocument(4)!.tags, [9]);
    });

    test('remove_custom_fields detaches a field; add_custom_fields attaches one with no value', async () => {
      const { plan: p } = await plan(1, { id: 'r', actions: [{ add_custom_fields: 'Rechnungsnummer' }] });
      assert.ok(isEmptyPlan(p), 'attaching a field that is attached keeps its value');
      const { evaluation, plan: detach } = await plan(1, {
        id: 'r',
        actions: [{ remove_custom_fields: 'Rechnungsnummer' }],
      });
      assert.deepEqual(evaluation.results[0].changes['custom_fields.Rechnungsnummer'], {
        from: 'SWM-2025-0012345',
        to: null,
      });
      await writePlan(dms, detach);
      assert.equal(
        sim.store.getDocument(1)!.custom_fields.some((cf) => cf.field === 4),
        false,
      );
      const { evaluation: attachEval, plan: attach } = await plan(1, {
        id: 'r',
        actions: [{ add_custom_fields: ['Rechnungsnummer'] }],
      });
      assert.deepEqual(attachEval.results[0].changes['custom_fields.Rechnungsnummer'], {
        from: null,
        to: null,
        empty: 'to',
      });
      await writePlan(dms, attach);
      assert.deepEqual(
        sim.store.getDocument(1)!.custom_fields.find((cf) => cf.field === 4),
        { value: null, field: 4 },
      );
    });

    test('owner and permissions are written in one PATCH of the lists that differ, and a second run writes nothing', async () => {
      const rule: RuleDefinition = {
        id: 'r',
        actions: [
          { set_owner: 'ben' },
          { add_permissions: { view: { groups: ['Family'] }, change: { users: ['carla'] } } },
        ],
      };
      const { evaluation, plan: p } = await plan(3, rule);
      assert.deepEqual(evaluation.results[0].changes.owner, { from: 'anna', to: 'ben' });
      assert.deepEqual(p.patch, {
        owner: 4,
        set_permissions: { view: { users: [5], groups: [1] }, change: { users: [5] } },
      });
      sim.resetCounts();
      const outcome = await writePlan(dms, p);
      assert.deepEqual(outcome.failures, {});
      assert.deepEqual(outcome.written.sort(), ['owner', 'permissions']);
      assert.equal(sim.counts()['PATCH /api/documents/{id}/'], 1);
      const stored = await dms.getDocument(3);
      assert.equal(stored.owner, 4);
      assert.deepEqual(stored.permissions, { view: { users: [5], groups: [1] }, change: { users: [5], groups: [] } });
      const { plan: again } = await plan(3, rule);
      assert.ok(isEmptyPlan(again), JSON.stringify(again.patch));
    });

    test('permissions a person changed since the read are left as they set them', async () => {
      const { plan: p } = await plan(5, {
        id: 'r',
        actions: [{ add_permissions: { view: { users: ['carla'] } } }, { set_title: 'Geteilt' }],
      });
      await person.updateDocument(5, { set_permissions: { view: { groups: [2] } } });
      const outcome = await writePlan(dms, p);
      assert.match(
        outcome.superseded.permissions ?? '',
        /permissions were changed in the dms after the rules read the document/,
      );
      assert.deepEqual((await dms.getDocument(5)).permissions?.view, { users: [], groups: [2] });
      assert.equal(sim.store.getDocument(5)?.title, 'Geteilt');
    });
  });
}
