import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Condition } from '../../../server/engine/engine.js';
import { run } from './helpers.js';
import { sample } from './fixtures/sample-documents.js';

// Document 1: Stadtwerke München electricity bill; tags Rechnung, bezahlt, rules-processed; created 2025-01-20.
const cases: Array<[string, Condition, boolean]> = [
  ['equals shorthand, case-insensitive', { correspondent: 'stadtwerke münchen' }, true],
  [
    'equals with case_sensitive: true',
    { correspondent: { equals: 'stadtwerke münchen', case_sensitive: true } },
    false,
  ],
  ['equals null on a set field', { document_type: null }, false],
  ['equals null on a custom field not attached', { 'custom_fields.Nope': null }, true],
  ['in', { document_type: { in: ['Bescheid', 'Rechnung'] } }, true],
  ['in without a hit', { document_type: { in: ['Bescheid', 'Vertrag'] } }, false],
  ['contains on text', { content: { contains: 'SEPA-Lastschrift' } }, true],
  ['contains on a tag list is element equality', { tags: { contains: 'bezahlt' } }, true],
  ['contains_any', { title: { contains_any: ['Gas', 'Strom'] } }, true],
  ['starts_with', { title: { starts_with: 'strom' } }, true],
  ['ends_with', { original_file_name: { ends_with: '.PDF' } }, true],
  ['ends_with without a hit', { original_file_name: { ends_with: '.jpg' } }, false],
  ['matches', { content: { matches: 'Rechnungsbetrag:\\s+\\d+,\\d{2}' } }, true],
  ['matches is case-sensitive unless (?i)', { content: { matches: 'rechnungsbetrag' } }, false],
  ['matches with (?i)', { content: { matches: '(?i)rechnungsbetrag' } }, true],
  ['matches a list: any pattern', { content: { matches: ['Mahnung', 'Stromrechnung'] } }, true],
  ['exists on a set field', { archive_serial_number: { exists: true } }, true],
  ['exists on a custom field not attached', { 'custom_fields.Nope': { exists: true } }, false],
  ['exists on an attached custom field', { 'custom_fields.Betrag': { exists: true } }, true],
  ['empty on a list with items', { notes: { empty: true } }, false],
  ['empty: false', { notes: { empty: false } }, true],
  ['gt on a number field', { page_count: { gt: 1 } }, true],
  ['gte on a number field', { page_count: { gte: 2 } }, true],
  ['lt on a number field', { archive_serial_number: { lt: 101 } }, false],
  ['lte on a number field', { archive_serial_number: { lte: 101 } }, true],
  ['gt on a date', { created: { gt: '2025-01-01' } }, true],
  ['lt with a relative date (now 2025-03-15)', { created: { lt: '-30d' } }, true],
  ['gt with a relative date', { created: { gt: '-2w' } }, false],
  ['gte with a relative month', { created: { gte: '-6m' } }, true],
  ['lt with a relative year', { created: { lt: '-1y' } }, false],
  ['gt on a datetime field compares by day', { added: { gt: '2025-01-21' } }, true],
  ['gt on a monetary custom field compares the amount', { 'custom_fields.Betrag': { gt: 80 } }, true],
  ['lt on a date custom field', { 'custom_fields.Fällig am': { lt: '2025-03-01' } }, true],
  ['equals on a monetary custom field', { 'custom_fields.Betrag': 84.37 }, true],
  ['equals on a select custom field (its label)', { 'custom_fields.Zahlungsstatus': 'Bezahlt' }, true],
  ['tags any', { tags: { any: ['Steuer', 'Rechnung'] } }, true],
  ['tags all', { tags: { all: ['Rechnung', 'bezahlt'] } }, true],
  ['tags all with one missing', { tags: { all: ['Rechnung', 'Steuer'] } }, false],
  ['tags none', { tags: { none: ['Steuer'] } }, true],
  ['tags none with a hit', { tags: { none: 'rechnung' } }, false],
  ['several operators in one test must all hold', { title: { contains: 'Strom', ends_with: '2024' } }, false],
  ['all', { all: [{ correspondent: 'Stadtwerke München' }, { tags: { any: ['Rechnung'] } }] }, true],
  ['all with one false', { all: [{ correspondent: 'Stadtwerke München' }, { tags: { any: ['Steuer'] } }] }, false],
  ['any', { any: [{ correspondent: 'Telekom' }, { document_type: 'Rechnung' }] }, true],
  ['any with none true', { any: [{ correspondent: 'Telekom' }, { document_type: 'Vertrag' }] }, false],
  ['not', { not: { tags: { any: ['Steuer'] } } }, true],
  [
    'nested',
    {
      all: [
        { not: { any: [{ page_count: { gt: 10 } }, { mime_type: 'image/jpeg' }] } },
        { content: { matches: '(?i)rechnung' } },
      ],
    },
    true,
  ],
];

for (const [name, when, expected] of cases) {
  test(`condition: ${name} → ${expected}`, () => {
    const result = run(sample(1), [{ id: 'r', when }]).results[0];
    assert.equal(result.status, expected ? 'matched' : 'not_matched', JSON.stringify(result.conditions, null, 1));
  });
}

test('a rule without conditions always matches', () => {
  assert.equal(run(sample(3), [{ id: 'r' }]).results[0].status, 'matched');
});

test('the trace says what each condition saw and why it failed', () => {
  const result = run(sample(1), [
    { id: 'r', when: { all: [{ content: { matches: '(?i)mahnung' } }, { tags: { any: ['Steuer'] } }] } },
  ]).results[0];
  assert.equal(result.status, 'not_matched');
  const [all, matches, tags] = result.conditions;
  assert.equal(all.path, 'when');
  assert.match(all.description, /all: 0 of 2 conditions hold → false/);
  assert.equal(matches.path, 'when/all/0/content/matches');
  assert.match(matches.description, /content matches \/\(\?i\)mahnung\/ → no match in [\d,]+ characters/);
  assert.match(String(matches.actual), /… \([\d,]+ characters\)$/, 'long content is shortened in the trace');
  assert.equal(tags.result, false);
  assert.deepEqual(tags.actual, ['bezahlt', 'Rechnung', 'rules-processed']);
});

test('every child is evaluated so the trace explains all of them', () => {
  const result = run(sample(1), [
    { id: 'r', when: { any: [{ title: 'x' }, { title: 'y' }, { title: { contains: 'Strom' } }] } },
  ]).results[0];
  assert.equal(result.conditions.length, 4);
  assert.deepEqual(
    result.conditions.map((c) => c.result),
    [true, false, false, true],
  );
});
