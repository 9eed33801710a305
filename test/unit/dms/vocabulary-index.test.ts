import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DmsVocabulary } from '../../../server/dms/types.js';
import { createVocabularyIndex } from '../../../server/dms/vocabulary-index.js';

const vocab: DmsVocabulary = {
  users: [
    { id: 3, name: 'anna' },
    { id: 4, name: 'ben' },
  ],
  groups: [{ id: 1, name: 'Family' }],
  tags: [
    { id: 2, name: 'Rechnung', owner: 3, is_inbox_tag: false, parent: null },
    { id: 7, name: 'rechnung', owner: null, is_inbox_tag: false, parent: null },
    { id: 1, name: 'Posteingang', owner: 3, is_inbox_tag: true, parent: null },
  ],
  correspondents: [
    { id: 5, name: 'ACME Corp.', owner: null },
    { id: 9, name: 'ACME Corp.', owner: 4 },
  ],
  document_types: [{ id: 1, name: 'Rechnung', owner: 3 }],
  storage_paths: [{ id: 1, name: 'Finanzen', owner: 3 }],
  custom_fields: [
    {
      id: 3,
      name: 'Zahlungsstatus',
      data_type: 'select',
      extra_data: { select_options: [{ id: 'a', label: 'offen' }] },
    },
  ],
};

test('idOf is case-insensitive and prefers the unowned object when names repeat', () => {
  const index = createVocabularyIndex(vocab);
  assert.equal(index.idOf('tags', 'RECHNUNG'), 7);
  assert.equal(index.idOf('tags', 'posteingang'), 1);
  assert.equal(index.idOf('correspondents', 'acme corp.'), 5);
  assert.equal(index.idOf('document_types', ' Rechnung '), 1);
  assert.equal(index.idOf('tags', 'Unbekannt'), undefined);
});

test('among owned duplicates the exact spelling wins', () => {
  const index = createVocabularyIndex({
    ...vocab,
    tags: [
      { id: 4, name: 'steuer', owner: 3, is_inbox_tag: false, parent: null },
      { id: 6, name: 'Steuer', owner: 5, is_inbox_tag: false, parent: null },
    ],
  });
  assert.equal(index.idOf('tags', 'Steuer'), 6);
  assert.equal(index.idOf('tags', 'steuer'), 4);
});

test('nameOf, field and fieldById resolve ids and custom fields', () => {
  const index = createVocabularyIndex(vocab);
  assert.equal(index.nameOf('storage_paths', 1), 'Finanzen');
  assert.equal(index.nameOf('tags', 99), undefined);
  assert.equal(index.field('zahlungsstatus')?.id, 3);
  assert.equal(index.fieldById(3)?.name, 'Zahlungsstatus');
  assert.equal(index.field('Betrag'), undefined);
  assert.deepEqual(index.names('correspondents'), ['ACME Corp.', 'ACME Corp.']);
});
