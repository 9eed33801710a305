import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DmsVocabulary } from '../../../server/dms/types.js';
import { createVocabularyIndex } from '../../../server/dms/vocabulary-index.js';
import type { RuleDefinition } from '../../../server/engine/model.js';
import { findUnknownNames } from '../../../server/rules/dms-names.js';

const vocabulary: DmsVocabulary = {
  users: [
    { id: 3, name: 'anna' },
    { id: 4, name: 'ben' },
  ],
  groups: [{ id: 1, name: 'Family' }],
  tags: [
    { id: 1, name: 'Posteingang', is_inbox_tag: true, parent: null },
    { id: 2, name: 'Rechnung', is_inbox_tag: false, parent: null },
  ],
  correspondents: [{ id: 1, name: 'Telekom Deutschland GmbH' }],
  document_types: [{ id: 1, name: 'Rechnung' }],
  storage_paths: [{ id: 1, name: 'Finanzen' }],
  custom_fields: [
    { id: 1, name: 'Betrag', data_type: 'monetary', extra_data: { default_currency: 'EUR' } },
    {
      id: 3,
      name: 'Zahlungsstatus',
      data_type: 'select',
      extra_data: {
        select_options: [
          { id: 'a', label: 'offen' },
          { id: 'b', label: 'bezahlt' },
        ],
      },
    },
  ],
};
const index = createVocabularyIndex(vocabulary);
const unknown = (rule: Omit<RuleDefinition, 'id'>) => findUnknownNames([{ id: 'r', ...rule }], index);

describe('dms name check', () => {
  it('accepts known names in any letter case', () => {
    assert.deepEqual(
      unknown({
        when: {
          all: [
            { tags: { any: ['posteingang'] } },
            { correspondent: 'telekom deutschland gmbh' },
            { 'custom_fields.Betrag': { exists: true } },
          ],
        },
        actions: [
          { add_tags: ['Rechnung'] },
          { set_document_type: 'Rechnung' },
          { set_storage_path: 'Finanzen' },
          { set_custom_fields: { Betrag: '1', Zahlungsstatus: 'Offen' } },
        ],
      }),
      [],
    );
  });

  it('checks owners and the users and groups of permission actions, never templated ones', () => {
    const problems = unknown({
      when: { owner: 'zoe' },
      actions: [
        { set_owner: 'BEN' },
        { set_permissions: { view: { users: ['anna', 'yan'], groups: ['{{ vars.group }}'] } } },
        { remove_permissions: { change: { groups: 'Nachbarn' } } },
        { remove_permissions: 'all' },
      ],
    });
    assert.deepEqual(
      problems.map((p) => [p.path.join('/'), p.message.split('.')[0]]),
      [
        ['rules/0/when/owner', 'the dms has no user "zoe"'],
        ['rules/0/actions/1/set_permissions/view/users/1', 'the dms has no user "yan"'],
        ['rules/0/actions/2/remove_permissions/change/groups', 'the dms has no group "Nachbarn"'],
      ],
    );
    assert.match(problems[0].message, /Known users: "anna", "ben"/);
  });

  it('checks the names a query filters and sorts by, never templated ones', () => {
    const problems = unknown({
      extract: {
        n: {
          query: 'max',
          field: 'custom_fields.Laufnummer',
          where: { document_type: 'Brief', tags: { all: ['Rechnung'] }, correspondent: '{{ doc.correspondent }}' },
        },
      },
      actions: [{ set_title: '{{ n }}' }],
    });
    assert.deepEqual(
      problems.map((p) => [p.path.join('/'), p.message.split('.')[0]]),
      [
        ['rules/0/extract/n/field', 'the dms has no custom field "Laufnummer"'],
        ['rules/0/extract/n/where/document_type', 'the dms has no document type "Brief"'],
      ],
    );
  });

  it('names each unknown name with its path and the known ones', () => {
    const problems = unknown({
      when: { any: [{ tags: { none: ['Archiv'] } }, { not: { document_type: { in: ['Rechnung', 'Mahnung'] } } }] },
      actions: [{ add_tags: 'Neu' }, { set_correspondent: 'ACME' }, { set_storage_path: 'Nirgendwo' }],
    });
    assert.deepEqual(
      problems.map((p) => p.path),
      [
        ['rules', 0, 'when', 'any', 0, 'tags', 'none', 0],
        ['rules', 0, 'when', 'any', 1, 'not', 'document_type', 'in', 1],
        ['rules', 0, 'actions', 0, 'add_tags'],
        ['rules', 0, 'actions', 1, 'set_correspondent'],
        ['rules', 0, 'actions', 2, 'set_storage_path'],
      ],
    );
    assert.match(problems[0].message, /no tag "Archiv"\. Known tags: "Posteingang", "Rechnung"/);
    assert.match(problems[2].message, /create_missing: true/);
  });

  it('lets create_missing cover tags, correspondents, types and storage paths, but not custom fields', () => {
    const problems = unknown({
      actions: [
        { add_tags: ['Neu'], create_missing: true },
        { set_correspondent: 'ACME', create_missing: true },
        { set_document_type: 'Mahnung', create_missing: true },
        { set_storage_path: 'Neu', create_missing: true },
        { set_custom_fields: { Unbekannt: 'x' }, create_missing: true },
      ],
    });
    assert.deepEqual(
      problems.map((p) => p.path.at(-1)),
      ['Unbekannt'],
    );
  });

  it('skips templated names, removed tags and comparisons that are not names', () => {
    assert.deepEqual(
      unknown({
        when: {
          all: [{ title: 'Whatever' }, { correspondent: { matches: 'Tele.*' } }, { correspondent: { exists: true } }],
        },
        actions: [
          { add_tags: ['{{ vars.tag }}'] },
          { remove_tags: ['Gibt es nicht'] },
          { set_custom_fields: { Zahlungsstatus: '{{ status }}' } },
        ],
      }),
      [],
    );
  });

  it('checks select field values against the options', () => {
    const [problem] = unknown({ actions: [{ set_custom_fields: { Zahlungsstatus: 'vielleicht' } }] });
    assert.match(
      problem.message,
      /"vielleicht" is not an option of the select field "Zahlungsstatus"; options: "offen", "bezahlt"/,
    );
  });

  it('checks custom fields an extraction reads from', () => {
    const [problem] = unknown({ extract: { v: { from: 'custom_fields.Fehlt', regex: '(.*)' } } });
    assert.deepEqual(problem.path, ['rules', 0, 'extract', 'v', 'from']);
  });
});

describe('money members in checks', () => {
  it('refuses .amount of a custom field the dms does not keep as money, and accepts a monetary one', () => {
    assert.deepEqual(unknown({ when: { check: 'doc.custom_fields.Betrag.amount >= 1000' } }), []);
    const [problem] = unknown({ when: { all: [{ check: "doc.custom_fields['Zahlungsstatus'].currency == 'EUR'" }] } });
    assert.deepEqual(problem.path, ['rules', 0, 'when', 'all', 0, 'check']);
    assert.match(problem.message, /"Zahlungsstatus" is a select field: it has no \.currency/);
    assert.match(
      unknown({ when: { check: 'doc.custom_fields.Betrg.amount > 1' } })[0].message,
      /no custom field "Betrg"/,
    );
  });
});

describe('names the file creates', () => {
  it('lets a condition name a tag or correspondent an action of the file creates with create_missing', () => {
    assert.deepEqual(
      unknown({
        when: { all: [{ not: { tags: { any: ['Verarbeitet'] } } }, { correspondent: { in: ['Neue Firma'] } }] },
        actions: [
          { add_tags: ['verarbeitet'], create_missing: true },
          { set_correspondent: 'Neue Firma', create_missing: true },
        ],
      }),
      [],
    );
  });
  it('still refuses a condition name that no action creates, and one created without create_missing', () => {
    const problems = unknown({ when: { tags: { any: ['Verarbeitet'] } }, actions: [{ add_tags: ['Verarbeitet'] }] });
    assert.deepEqual(
      problems.map((p) => p.path.join('/')),
      ['rules/0/when/tags/any/0', 'rules/0/actions/0/add_tags/0'],
    );
  });
});
