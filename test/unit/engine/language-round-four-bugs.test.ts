import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileRule, emptyDocument, runRuleTests, type RuleDefinition } from '../../../server/engine/engine.js';
import { NOW, run } from './helpers.js';
import { sample } from './fixtures/sample-documents.js';

const dated = { ...emptyDocument(), id: 7, title: 'x', created: '2025-10-05', added: '2025-10-05T14:12:00+02:00' };

test('a date equals another date field on the same day, whichever side carries the time', () => {
  for (const when of [
    { created: { equals: { field: 'added' } } },
    { added: { equals: { field: 'created' } } },
  ] as RuleDefinition['when'][]) {
    const result = run(dated, [{ id: 'r', when }]).results[0];
    assert.equal(result.status, 'matched', JSON.stringify(result.conditions));
    assert.match(result.conditions[0].description, /compared by day/);
  }
  const otherDay = run({ ...dated, added: '2025-10-06T00:10:00+02:00' }, [
    { id: 'r', when: { created: { equals: { field: 'added' } } } },
  ]).results[0];
  assert.equal(otherDay.status, 'not_matched');
});

test('pick: all keeps every group list aligned with the matches, empty-string matches included', () => {
  const doc = { ...emptyDocument(), content: 'Datum: 01\nGeburtsdatum: 02\nZahlungsdatum: 03' };
  const result = run(doc, [
    {
      id: 'r',
      extract: {
        d: {
          regex: '(?i)(?<word>\\p{L}*)datum: (?<day>\\d\\d)',
          pick: 'all',
          groups: { word: { type: 'string' }, day: { type: 'int' } },
        },
      },
      actions: [
        { set_title: '{% for w in word %}{{ forloop.index0 }}={{ w }}/{{ day[forloop.index0] }} {% endfor %}' },
      ],
    },
  ]).results[0];
  assert.equal(result.status, 'matched', result.error ?? '');
  assert.deepEqual(result.extracted.word, ['', 'Geburts', 'Zahlungs']);
  assert.deepEqual(result.extracted.day, [1, 2, 3]);
  assert.match(result.actions[0].detail ?? '', /"0=\/1 1=Geburts\/2 2=Zahlungs\/3"/);
});

test('a template error in a branch is an error even when the template reads an optional value that found nothing', () => {
  const def: RuleDefinition = {
    id: 'r',
    extract: {
      a: { regex: 'Nummer (\\d+)' },
      b: { value: "{% if a %}{{ a }}{% else %}{{ '2025-01-01' | shift_date: 2 }}{% endif %}" },
    },
    actions: [{ set_title: '{{ b }}' }],
  };
  const result = run(sample(1), [def]).results[0];
  assert.equal(result.status, 'error');
  assert.match(result.error ?? '', /shift_date/);
  const inAction = run(sample(1), [
    {
      id: 'r',
      extract: { a: { regex: 'Nummer (\\d+)' } },
      actions: [{ set_title: "{% if a %}{{ a }}{% else %}{{ '2025-01-01' | shift_date: 2 }}{% endif %}" }],
    },
  ]).results[0];
  assert.equal(inAction.status, 'error');
  assert.match(inAction.error ?? '', /shift_date/);
  // A plain read of the missing value still keeps the field: the value was not found.
  const plain = run(sample(1), [
    { id: 'r', extract: { a: { regex: 'Nummer (\\d+)' } }, actions: [{ set_title: 'Nr {{ a }}' }] },
  ]).results[0];
  assert.equal(plain.status, 'matched');
  assert.equal(plain.actions[0].status, 'skipped');
  assert.match(plain.actions[0].detail ?? '', /a found no value/);
});

test('a check shows the size of a list and a text it read', () => {
  const doc = { ...emptyDocument(), title: 'Rechnung', tags: ['a', 'b', 'c'] };
  const result = run(doc, [{ id: 'r', when: { check: 'doc.tags.size > 1 and doc.title.size > 3' } }]).results[0];
  assert.equal(result.status, 'matched');
  assert.deepEqual(result.conditions[0].actual, { 'doc.tags.size': 3, 'doc.title.size': 8 });
  assert.match(result.conditions[0].description, /doc\.tags\.size = 3, doc\.title\.size = 8/);
  const first = run(doc, [{ id: 'r', when: { check: "doc.tags.first == 'a'" } }]).results[0];
  assert.deepEqual(first.conditions[0].actual, { 'doc.tags.first': 'a' });
});

test('a test expecting a note compares white space as set_title does: a no-break space before € is a space', () => {
  const def: RuleDefinition = {
    id: 'note',
    extract: { total: { regex: 'Betrag ([\\d.,]+)', type: 'money', currency: 'EUR' } },
    actions: [{ add_note: "Betrag {{ total | money: 'de', 'EUR' }}" }],
    tests: [
      {
        document: { content: 'Betrag 1.471,60' },
        expect: { matched: true, changes: { notes: ['Betrag 1.471,60 €'] } },
      },
      {
        name: 'a different amount still fails',
        document: { content: 'Betrag 1.471,61' },
        expect: { matched: true, changes: { notes: ['Betrag 1.471,60 €'] } },
      },
    ],
  };
  const [same, different] = runRuleTests(compileRule(def), { now: NOW });
  assert.equal(same.ok, true, same.message);
  assert.equal(different.ok, false);
  assert.match(different.message, /1\.471,61/);
});
