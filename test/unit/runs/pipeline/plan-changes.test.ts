import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createVocabularyIndex } from '../../../../server/dms/vocabulary-index.js';
import type { DmsDocument } from '../../../../server/dms/types.js';
import { fixtureVocabulary, readFixture } from '../../../helpers/paperless-fixtures.js';
import { isEmptyPlan, planDocument } from '../../../../server/runs/pipeline/plan-changes.js';
import { toRuleDocument } from '../../../../server/runs/documents/rule-document.js';

const vocabulary = fixtureVocabulary();
const index = createVocabularyIndex(vocabulary);
const doc = (): DmsDocument => readFixture('document-1.json') as DmsDocument;

describe('the document as rules see it', () => {
  it('resolves ids to names and decodes custom fields by data type', () => {
    const ruleDoc = toRuleDocument(doc(), index);
    assert.deepEqual(ruleDoc.tags, ['bezahlt', 'Rechnung', 'rules-processed']);
    assert.equal(ruleDoc.correspondent, 'Stadtwerke München');
    assert.equal(ruleDoc.document_type, 'Rechnung');
    assert.equal(ruleDoc.storage_path, 'Finanzen');
    assert.deepEqual(ruleDoc.custom_fields, {
      Betrag: { amount: 84.37, currency: 'EUR' },
      'Fällig am': '2025-02-05',
      Zahlungsstatus: 'bezahlt',
      Rechnungsnummer: 'SWM-2025-0012345',
    });
    assert.deepEqual(ruleDoc.notes, ['Per SEPA-Lastschrift am 05.02.2025 bezahlt.']);
    assert.equal(ruleDoc.created, '2025-01-20');
  });

  it('shows an id the vocabulary does not know as #id instead of dropping it', () => {
    const d = { ...doc(), tags: [3, 77] };
    assert.deepEqual(toRuleDocument(d, index).tags, ['bezahlt', '#77']);
  });
});

describe('planning a write', () => {
  it('plans nothing when the changes are already true of the document', () => {
    const plan = planDocument(
      doc(),
      {
        title: 'Stromrechnung Januar 2025',
        correspondent: 'stadtwerke münchen',
        tags: ['Rechnung', 'bezahlt', 'rules-processed'],
        custom_fields: { Betrag: { amount: 84.37, currency: 'EUR' }, Zahlungsstatus: 'bezahlt' },
        created: '2025-01-20',
        notes: ['Per SEPA-Lastschrift am 05.02.2025 bezahlt.'],
      },
      {},
      index,
    );
    assert.ok(isEmptyPlan(plan), JSON.stringify(plan.patch));
    assert.deepEqual(plan.changed, []);
    assert.deepEqual(plan.failures, {});
  });

  it('turns names into ids and only includes fields that differ', () => {
    const plan = planDocument(
      doc(),
      { title: 'Neu', document_type: 'Vertrag', correspondent: 'Stadtwerke München', tags: ['Rechnung', 'Steuer'] },
      {},
      index,
    );
    assert.deepEqual(plan.patch, { title: 'Neu', document_type: 2 });
    // Tags are a difference, never a whole set: PATCH `tags` would drop a tag a person added since the read.
    assert.deepEqual(plan.tags, { add: [4], remove: [3, 9] });
    assert.deepEqual(plan.changed.sort(), ['document_type', 'tags', 'title']);
  });

  it("adds a tag's ancestors as Paperless stores them, from each vocabulary snapshot's own tag tree", () => {
    // Steuer (4) under Rechnung (9) in one snapshot, under Posteingang (1) in the next: each plan uses its own.
    const under = (parent: number) =>
      createVocabularyIndex({
        ...vocabulary,
        tags: vocabulary.tags.map((t) => (t.id === 4 ? { ...t, parent } : t)),
      });
    const plan = (index: ReturnType<typeof createVocabularyIndex>) =>
      planDocument({ ...doc(), tags: [3] }, { tags: ['bezahlt', 'Steuer'] }, {}, index).tags;
    const first = under(9);
    const second = under(1);
    assert.deepEqual(plan(first), { add: [4, 9], remove: [] });
    assert.deepEqual(plan(second), { add: [4, 1], remove: [] });
    assert.deepEqual(plan(first), { add: [4, 9], remove: [] });
  });

  it('sets only the custom fields that change, encoded for their data type (never the whole set)', () => {
    const plan = planDocument(doc(), { custom_fields: { Betrag: 99.5, Zahlungsstatus: 'offen' } }, {}, index);
    assert.deepEqual(plan.customFields, {
      set: [
        { field: 1, value: 'EUR99.50' },
        { field: 3, value: 'Kq3ZP8rWmTn2xYbD' },
      ],
      remove: [],
    });
    assert.equal(plan.patch.custom_fields, undefined);
  });

  it('fails a field whose name the dms lacks unless the rule allows creating it', () => {
    const refused = planDocument(doc(), { tags: ['Rechnung', 'Neu'], correspondent: 'Nobody' }, {}, index);
    assert.equal(refused.patch.tags, undefined);
    assert.equal(refused.patch.correspondent, undefined);
    assert.match(refused.failures.tags ?? '', /Tag "Neu" does not exist in the dms.*create_missing: true/);
    assert.match(refused.failures.correspondent ?? '', /Correspondent "Nobody"/);
    assert.deepEqual(refused.create, []);

    const allowed = planDocument(doc(), { tags: ['Rechnung', 'Neu'] }, { tags: ['neu'] }, index);
    assert.deepEqual(allowed.create, [{ kind: 'tags', name: 'Neu' }]);
    assert.deepEqual(allowed.failures, {});
    assert.deepEqual(allowed.changed, ['tags']);
  });

  it('never creates custom fields, nor a storage path the action did not allow', () => {
    const plan = planDocument(
      doc(),
      { storage_path: 'Archiv', custom_fields: { Unbekannt: 'x' } },
      { tags: ['Archiv'] },
      index,
    );
    assert.match(
      plan.failures.storage_path ?? '',
      /Storage path "Archiv" does not exist in the dms; create it there or add create_missing: true/,
    );
    assert.match(plan.failures.custom_fields ?? '', /Custom field "Unbekannt"/);
    assert.ok(isEmptyPlan(plan));
  });

  it('creates a storage path the action allowed, with the path template it gave', () => {
    const plan = planDocument(
      doc(),
      { storage_path: 'Belege 2025' },
      { storage_paths: ['belege 2025'], storage_path_templates: { 'belege 2025': 'belege/{{ title }}' } },
      index,
    );
    assert.deepEqual(plan.create, [{ kind: 'storage_paths', name: 'Belege 2025', path: 'belege/{{ title }}' }]);
    assert.deepEqual(plan.failures, {});
  });

  it('records a value the field cannot hold as a failure, not an exception', () => {
    const plan = planDocument(doc(), { custom_fields: { 'Fällig am': 'tomorrow', Rechnungsnummer: 'X-1' } }, {}, index);
    assert.match(plan.failures.custom_fields ?? '', /Fällig am.*ISO date/);
    assert.deepEqual(
      plan.customFields?.set.find((cf) => cf.field === 4),
      { value: 'X-1', field: 4 },
    );
  });

  it('adds only notes that are not there yet', () => {
    const plan = planDocument(
      doc(),
      { notes: ['Per SEPA-Lastschrift am 05.02.2025 bezahlt.', 'Geprüft', 'Geprüft'] },
      {},
      index,
    );
    assert.deepEqual(plan.notes, ['Geprüft']);
    assert.deepEqual(plan.patch, {});
  });

  it('clears a relation with null only when one is set', () => {
    assert.deepEqual(planDocument(doc(), { storage_path: null }, {}, index).patch, { storage_path: null });
    assert.deepEqual(planDocument({ ...doc(), storage_path: null }, { storage_path: null }, {}, index).patch, {});
  });
});

describe('planning owner and permissions', () => {
  const withPermissions = (): DmsDocument => ({
    ...doc(),
    permissions: { view: { users: [4], groups: [] }, change: { users: [], groups: [] } },
  });

  it('reads the owner and the permissions as names', () => {
    const ruleDoc = toRuleDocument(
      {
        ...withPermissions(),
        permissions: { view: { users: [4, 9], groups: [1] }, change: { users: [4], groups: [] } },
      },
      index,
    );
    assert.equal(ruleDoc.owner, 'anna');
    assert.deepEqual(ruleDoc.permissions, {
      view: { users: ['ben', '#9'], groups: ['Family'] },
      change: { users: ['ben'], groups: [] },
    });
    assert.equal(toRuleDocument(doc(), index).permissions, null, 'read without full_perms: unknown, not empty');
  });

  it('patches the owner by id, and nothing when it already holds', () => {
    assert.deepEqual(planDocument(doc(), { owner: 'ben' }, {}, index).patch, { owner: 4 });
    assert.deepEqual(planDocument(doc(), { owner: 'Anna' }, {}, index).patch, {});
    assert.deepEqual(planDocument(doc(), { owner: null }, {}, index).patch, { owner: null });
  });

  it('sends only the permission lists that differ, by id', () => {
    const permissions = { view: { users: ['ben'], groups: ['Family'] }, change: { users: [], groups: [] } };
    const plan = planDocument(withPermissions(), { permissions }, {}, index);
    assert.deepEqual(plan.patch, { set_permissions: { view: { groups: [1] } } });
    assert.deepEqual(plan.changed, ['permissions']);
    const again = planDocument(
      { ...withPermissions(), permissions: { view: { users: [4], groups: [1] }, change: { users: [], groups: [] } } },
      { permissions },
      {},
      index,
    );
    assert.ok(isEmptyPlan(again));
  });

  it('an unknown user or group fails its field with a message, and users are never created', () => {
    const owner = planDocument(doc(), { owner: 'zoe' }, {}, index);
    assert.deepEqual(owner.patch, {});
    assert.match(owner.failures.owner ?? '', /User "zoe" does not exist in the dms; create it in Paperless/);
    const permissions = { view: { users: [], groups: ['Nachbarn'] }, change: { users: [], groups: [] } };
    assert.match(
      planDocument(withPermissions(), { permissions }, {}, index).failures.permissions ?? '',
      /Group "Nachbarn" does not exist/,
    );
  });

  it('refuses to plan permissions for a document read without them', () => {
    const permissions = { view: { users: ['ben'], groups: [] }, change: { users: [], groups: [] } };
    assert.match(
      planDocument(doc(), { permissions }, {}, index).failures.permissions ?? '',
      /read without its permissions/,
    );
  });
});
