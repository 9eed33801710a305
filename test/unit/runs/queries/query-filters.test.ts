import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createVocabularyIndex } from '../../../../server/dms/vocabulary-index.js';
import type { QueryFilter, QueryQuestion } from '../../../../server/engine/document-queries.js';
import { queryRequest } from '../../../../server/runs/queries/query-filters.js';
import { fixtureVocabulary } from '../../../helpers/paperless-fixtures.js';

const index = createVocabularyIndex(fixtureVocabulary());
const CREATED = { field: 'created', descending: false, present: false };
const ask = (where: QueryFilter[], order = CREATED): ReturnType<typeof queryRequest> =>
  queryRequest({ where, order, exclude: 7 } satisfies QueryQuestion, index);

test('names become ids, text the case-insensitive lookups, ties broken by id', () => {
  assert.deepEqual(
    ask([
      { field: 'correspondent', op: 'equals', value: 'telekom deutschland gmbh' },
      { field: 'title', op: 'equals', value: 'Rechnung 4711' },
      { field: 'tags', op: 'none', value: ['Steuer', 'Unbekannt'] },
      { field: 'document_type', op: 'equals', value: null },
    ]),
    {
      kind: 'ask',
      query: {
        filters: {
          correspondent__id__in: '2',
          title__iexact: 'Rechnung 4711',
          tags__id__none: '4',
          document_type__isnull: 'true',
        },
        ordering: 'created,id',
      },
    },
  );
});

test('max of the ASN asks for documents that have one, highest first', () => {
  assert.deepEqual(ask([], { field: 'archive_serial_number', descending: true, present: true }), {
    kind: 'ask',
    query: { filters: { archive_serial_number__isnull: 'false' }, ordering: '-archive_serial_number,-id' },
  });
});

test('custom fields become one custom_field_query in the form Paperless compares for the type', () => {
  const out = ask(
    [
      { field: 'custom_fields.Rechnungsnummer', op: 'starts_with', value: 'SWM' },
      { field: 'custom_fields.Betrag', op: 'equals', value: 'EUR84.37' },
      { field: 'custom_fields.Zahlungsstatus', op: 'equals', value: 'Offen' },
    ],
    { field: 'custom_fields.Fällig am', descending: true, present: true },
  );
  assert.equal(out.kind, 'ask');
  assert.equal(out.query.ordering, '-custom_field_2', 'a custom field ordering takes no second key');
  assert.deepEqual(JSON.parse(out.query.filters.custom_field_query), [
    'AND',
    [
      [4, 'istartswith', 'SWM'],
      [1, 'range', [84.37, 84.37]],
      [3, 'exact', 'Kq3ZP8rWmTn2xYbD'],
      [2, 'isnull', false],
    ],
  ]);
});

test('a name the dms lacks matches nothing without a request; what it cannot filter is an error', () => {
  assert.deepEqual(ask([{ field: 'correspondent', op: 'equals', value: 'Nobody Inc.' }]), {
    kind: 'none',
    why: 'the dms has no correspondent "Nobody Inc."',
  });
  assert.deepEqual(ask([{ field: 'tags', op: 'all', value: ['Steuer', 'Unbekannt'] }]), {
    kind: 'none',
    why: 'the dms has no tag "Unbekannt"',
  });
  assert.deepEqual(ask([{ field: 'custom_fields.Nope', op: 'exists', value: true }]), {
    kind: 'error',
    error: 'the dms has no custom field "Nope"',
  });
  assert.deepEqual(ask([{ field: 'custom_fields.Betrag', op: 'contains', value: '84' }]), {
    kind: 'error',
    error: 'custom_fields.Betrag is monetary: contains applies to text fields',
  });
});
