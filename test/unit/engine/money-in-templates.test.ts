import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileRule, RuleCompileError, runRuleTests, type RuleDefinition } from '../../../server/engine/engine.js';
import { NOW, run } from './helpers.js';
import { sample } from './fixtures/sample-documents.js';

// Document 1 carries Betrag EUR 84.37 (a monetary custom field) and Rechnungsnummer SWM-2025-0012345 (text).

test('a check reads the amount of a monetary custom field (it was silently false)', () => {
  const low = run(sample(1), [{ id: 'r', when: { check: 'doc.custom_fields.Betrag.amount >= 80' } }]).results[0];
  assert.equal(low.status, 'matched', JSON.stringify(low.conditions));
  assert.match(low.conditions[0].description, /doc\.custom_fields\.Betrag\.amount = 84\.37/);
  const high = run(sample(1), [{ id: 'r', when: { check: 'doc.custom_fields.Betrag.amount >= 1000' } }]).results[0];
  assert.equal(high.status, 'not_matched');
});

test('{% if doc.custom_fields.Betrag.amount >= … %} in a template and .currency both read the money value', () => {
  const rule: RuleDefinition = {
    id: 'r',
    actions: [
      {
        set_title:
          '{% if doc.custom_fields.Betrag.amount >= 50 %}big{% else %}small{% endif %} {{ doc.custom_fields.Betrag.currency }} {{ doc.custom_fields.Betrag }}',
      },
    ],
  };
  const result = run(sample(1), [rule]);
  assert.equal(result.results[0].status, 'matched', result.results[0].error ?? '');
  assert.equal(result.changes.title, 'big EUR 84.37');
});

test('an extracted money value offers .amount and .currency and still renders as a plain decimal', () => {
  const rule: RuleDefinition = {
    id: 'r',
    when: { check: 'total.amount > 80 and total.currency == "EUR"' },
    extract: { total: { regex: 'Rechnungsbetrag: ([\\d,]+ EUR)', type: 'money' } },
    actions: [
      { set_title: '{{ total }} / {{ total.amount | plus: 1 }} / {{ total | money: "de" }} / {{ total.currency }}' },
    ],
  };
  const result = run(sample(1), [rule]);
  assert.equal(
    result.results[0].status,
    'matched',
    result.results[0].error ?? JSON.stringify(result.results[0].conditions),
  );
  assert.equal(result.changes.title, '84.37 / 85.37 / 84,37 / EUR');
});

test('money compares as before: total > 1000 and total == "84.37"', () => {
  const rule: RuleDefinition = {
    id: 'r',
    when: { all: [{ check: 'total < 1000' }, { check: 'total == "84.37"' }] },
    extract: { total: { regex: 'Rechnungsbetrag: ([\\d,]+ EUR)', type: 'money' } },
  };
  assert.equal(run(sample(1), [rule]).results[0].status, 'matched');
});

function compileError(def: RuleDefinition): string {
  try {
    compileRule(def);
  } catch (err) {
    assert.ok(err instanceof RuleCompileError, String(err));
    return err.message;
  }
  assert.fail('expected a save error');
}

test('a check that reads a member a value cannot have is a save error, not false', () => {
  assert.match(
    compileError({ id: 'r', when: { check: 'doc.custom_fields.Betrag.amout >= 1000' } }),
    /amout.*amount, currency/s,
  );
  assert.match(
    compileError({
      id: 'r',
      when: { check: 'total.amount > 5' },
      extract: { total: { regex: '(\\d+)', type: 'number' } },
    }),
    /total\.amount.*number/,
  );
  assert.match(compileError({ id: 'r', when: { check: 'doc.title.amount > 5' } }), /doc\.title\.amount/);
  assert.match(
    compileError({ id: 'r', actions: [{ set_title: '{{ doc.page_count.size }}' }] }),
    /doc\.page_count\.size/,
  );
});

test('reading .amount of a custom field that holds no money makes the rule an error at run time', () => {
  const result = run(sample(1), [{ id: 'r', when: { check: 'doc.custom_fields.Rechnungsnummer.amount > 5' } }])
    .results[0];
  assert.equal(result.status, 'error');
  assert.match(result.error ?? '', /Rechnungsnummer.*not money/);
});

test('a rule test with a monetary field written as Paperless writes it can assert on .amount', () => {
  const compiled = compileRule({
    id: 'big',
    when: { check: 'doc.custom_fields.Betrag.amount >= 1000' },
    actions: [{ add_tags: 'Großbetrag' }],
    tests: [
      {
        document: { custom_fields: { Betrag: 'EUR1500.00' } },
        expect: { matched: true, changes: { tags: ['Großbetrag'] } },
      },
      { document: { custom_fields: { Betrag: 'EUR999.99' } }, expect: { matched: false } },
      { document: {}, expect: { matched: false } },
    ],
  });
  const outcomes = runRuleTests(compiled, { now: NOW });
  assert.deepEqual(
    outcomes.map((o) => o.message),
    ['test 1: passed', 'test 2: passed', 'test 3: passed'],
  );
});
