import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileRule, runRuleTests, type Condition, type RuleDefinition } from '../../../server/engine/engine.js';
import { NOW, run } from './helpers.js';
import { sample } from './fixtures/sample-documents.js';

// Document 1: Stadtwerke München bill, Betrag EUR 84.37, created 2025-01-20 (a Monday), Fällig am 2025-02-05.
const cases: Array<[string, Condition, boolean]> = [
  [
    'check: an expression over doc',
    { check: "doc.correspondent == 'Stadtwerke München' and doc.tags contains 'Rechnung'" },
    true,
  ],
  ['check: an expression over vars', { check: 'doc.custom_fields.Rechnungsnummer == vars.number' }, true],
  ['check: a template that renders truthy', { check: "{{ doc.created | date: '%u' }}" }, true],
  [
    'check: a template that renders false',
    { check: "{% if doc.created contains '-31' %}yes{% else %}no{% endif %}" },
    false,
  ],
  [
    'check: created on a Sunday',
    { check: "{% assign day = doc.created | date: '%u' %}{% if day == '7' %}yes{% endif %}" },
    false,
  ],
  [
    'check: the last day of the month',
    { check: "{{ doc.created | shift_date: '+1d' | date: '%d' | remove: '01' | size | minus: 2 }}" },
    false,
  ],
  ['check: now', { check: "{% assign year = now | date: '%Y' %}{% if year == '2025' %}yes{% endif %}" }, true],
  [
    'check: now in another year',
    { check: "{% assign year = now | date: '%Y' %}{% if year == '2024' %}yes{% endif %}" },
    false,
  ],
  ['field comparison: a custom date after created', { 'custom_fields.Fällig am': { gt: { field: 'created' } } }, true],
  ['field comparison: created before the due date', { created: { gte: { field: 'custom_fields.Fällig am' } } }, false],
  ['field comparison: equals another field', { title: { equals: { field: 'title' } } }, true],
  ['field comparison: money with a number field', { 'custom_fields.Betrag': { lt: { field: 'page_count' } } }, false],
  ['id as a field', { id: { in: [1, 2] } }, true],
  ['id not in a list', { not: { id: { in: [5, 6] } } }, true],
];
for (const [name, when, expected] of cases) {
  test(`condition ${name} → ${expected}`, () => {
    const result = run(sample(1), [{ id: 'r', when }], { vars: { number: 'SWM-2025-0012345' } }).results[0];
    assert.notEqual(result.status, 'error', result.error ?? '');
    assert.equal(result.status === 'matched', expected, JSON.stringify(result.conditions, null, 1));
  });
}

test('a check shows what it evaluated: the values an expression read, or what a template rendered', () => {
  const expr = run(sample(1), [{ id: 'r', when: { check: 'doc.page_count > 1 and doc.correspondent' } }]).results[0]
    .conditions[0];
  assert.equal(expr.path, 'when');
  assert.equal(expr.operator, 'check');
  assert.deepEqual(expr.actual, { 'doc.page_count': sample(1).page_count, 'doc.correspondent': 'Stadtwerke München' });
  assert.match(
    expr.description,
    /^check "doc.page_count > 1 and doc.correspondent" → (true|false) \(doc.page_count = \d+, doc.correspondent = "Stadtwerke München"\)$/,
  );
  const rendered = run(sample(1), [{ id: 'r', when: { all: [{ check: "{{ doc.created | date: '%A' }}" }] } }])
    .results[0].conditions[1];
  assert.equal(rendered.description, 'check "{{ doc.created | date: \'%A\' }}" rendered "Monday" → true');
});

test('a check that reads an extracted value runs after extraction; a required value that is missing stops it', () => {
  const rule: RuleDefinition = {
    id: 'big',
    when: { all: [{ tags: { any: ['Rechnung'] } }, { check: 'total > 50' }] },
    extract: { total: { regex: 'Rechnungsbetrag: ([\\d,]+)', type: 'number', required: true } },
    actions: [{ add_tags: 'teuer' }],
  };
  const result = run(sample(1), [rule]).results[0];
  assert.equal(result.status, 'matched', JSON.stringify(result.conditions));
  assert.deepEqual(
    result.conditions.map((c) => c.path),
    ['extract/total', 'when', 'when/all/0/tags/any', 'when/all/1'],
  );
  assert.match(result.conditions[3].description, /total = 84.37/);
  assert.equal(run(sample(2), [rule]).results[0].status, 'not_matched');
});

test('a check that fails to render makes the rule an error, never a quiet false', () => {
  const result = run(sample(1), [{ id: 'r', when: { check: "{{ doc.title | date: '%Y' }}" } }]).results[0];
  assert.equal(result.status, 'error');
  assert.match(result.error ?? '', /is not a date/);
});

test('checks and field comparisons are refused at compile time when they cannot work', () => {
  assert.throws(() => compileRule({ id: 'r', when: { check: 'totl > 3' } }), /template names "totl"/);
  assert.throws(() => compileRule({ id: 'r', when: { check: '{{ doc.title | }' } }), /does not parse/);
  assert.throws(
    () => compileRule({ id: 'r', when: { check: "{{ doc.created | date: '%u' }} == 7" } }),
    /compares outside its \{\{ \}\}: .*always true/,
  );
  assert.throws(() => compileRule({ id: 'r', when: { created: { gt: { field: 'nope' } } } }), /unknown field "nope"/);
  assert.throws(() => compileRule({ id: 'r', when: { created: { gt: { field: 'title' } } } }), /title is text/);
  assert.throws(
    () => compileRule({ id: 'r', when: { title: { contains: { field: 'content' } } as never } }),
    /"contains" cannot take another field/,
  );
});

test('a rule test may set the document id', () => {
  const compiled = compileRule({
    id: 'skip-known',
    when: { not: { id: { in: [17, 23] } } },
    tests: [
      { document: { id: 17 }, expect: { matched: false } },
      { document: { id: 18 }, expect: { matched: true } },
    ],
  });
  assert.deepEqual(
    runRuleTests(compiled, { now: NOW }).map((o) => o.message),
    ['test 1: passed', 'test 2: passed'],
  );
});
