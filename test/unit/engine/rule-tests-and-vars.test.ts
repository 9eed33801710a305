import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compileRule,
  renderVars,
  runRuleTests,
  TemplateError,
  type RuleDefinition,
} from '../../../server/engine/engine.js';
import { NOW } from './helpers.js';

const rule: RuleDefinition = {
  id: 'acme-invoice',
  when: { all: [{ correspondent: 'ACME' }, { content: { matches: '(?i)rechnung|invoice' } }] },
  extract: {
    number: { regex: 'Nr\\.?\\s*(?<value>\\d+)', required: true },
    total: { regex: ['Summe\\s+([\\d.,]+)', 'Total\\s+([\\d.,]+)'], type: 'money', pick: 'last', currency: 'EUR' },
    issued: { regex: '(\\d{1,2}\\.\\d{1,2}\\.\\d{4})', type: 'date', format: 'dd.MM.yyyy' },
  },
  actions: [
    { set_title: "{{ doc.correspondent }} {{ issued | date: '%Y-%m' }} #{{ number }}" },
    { set_document_type: 'Invoice' },
    { add_tags: ['invoice', '{{ vars.year_tag }}'] },
    { set_custom_fields: { Betrag: '{{ total }}' } },
  ],
  tests: [
    {
      name: 'German invoice',
      document: {
        content: 'ACME GmbH Rechnung Nr 123 Summe 99,50 am 01.03.2024',
        correspondent: 'ACME',
        tags: ['inbox'],
      },
      expect: {
        matched: true,
        changes: {
          title: 'ACME 2024-03 #123',
          document_type: 'Invoice',
          tags: ['invoice', 'inbox', 'y2024'],
          custom_fields: { Betrag: 99.5 },
        },
        extracted: { number: '123', issued: '2024-03-01', total: 'EUR99.50' },
      },
    },
    { name: 'reminder', document: { content: 'Zahlungserinnerung' }, expect: { matched: false } },
    {
      name: 'wrong title',
      document: { content: 'ACME Rechnung Nr 5 Summe 1,00 am 02.03.2024', correspondent: 'ACME' },
      expect: { matched: true, changes: { title: 'ACME 2024-03 #6' } },
    },
    { name: 'expects a match', document: { content: 'Mahnung', correspondent: 'ACME' }, expect: { matched: true } },
  ],
};

test('runRuleTests runs each example through the engine and reports pass or an actionable failure with a path', () => {
  const outcomes = runRuleTests(compileRule(rule), { now: NOW, vars: { year_tag: 'y2024' } });
  assert.deepEqual(
    outcomes.map((o) => o.ok),
    [true, true, false, false],
    JSON.stringify(outcomes, null, 1),
  );
  assert.deepEqual(outcomes[2].path, ['tests', 2, 'expect', 'changes', 'title']);
  assert.match(outcomes[2].message, /wrong title: title: expected "ACME 2024-03 #6", got "ACME 2024-03 #5"/);
  assert.deepEqual(outcomes[3].path, ['tests', 3, 'expect', 'matched']);
  assert.match(outcomes[3].message, /did not match: content matches .* → no match/);
});

test('runRuleTests reports a template error in a test as a failure', () => {
  const outcomes = runRuleTests(compileRule({ ...rule, tests: [rule.tests![0]] }), { now: NOW });
  assert.equal(outcomes[0].ok, false);
  assert.match(outcomes[0].message, /the rule failed: .*undefined variable "vars.year_tag"/);
});

test('a rule test may give a monetary field as dms text such as EUR84.37', () => {
  const compiled = compileRule({
    id: 'big-bill',
    when: { 'custom_fields.Betrag': { gt: 80 } },
    actions: [{ add_tags: 'teuer' }],
    tests: [
      { document: { custom_fields: { Betrag: 'EUR84.37' } }, expect: { matched: true, changes: { tags: ['teuer'] } } },
      { document: { custom_fields: { Betrag: 12 } }, expect: { matched: false } },
    ],
  });
  assert.deepEqual(
    runRuleTests(compiled, { now: NOW }).map((o) => o.ok),
    [true, true],
  );
});

test('renderVars renders templates with now, env and the vars above and inherited', () => {
  const global = renderVars(
    { year: "{{ now | date: '%Y' }}", owner: '{{ env.SVC_VAR_OWNER }}' },
    { now: NOW, env: { SVC_VAR_OWNER: 'anna' } },
  );
  assert.deepEqual(global, { year: '2025', owner: 'anna' });
  const pkg = renderVars(
    { year_tag: 'steuer-{{ vars.year }}', nested: { list: ['{{ owner }}', 3] }, flag: true },
    { now: NOW, env: {}, inherited: global },
  );
  assert.deepEqual(pkg, {
    year: '2025',
    owner: 'anna',
    year_tag: 'steuer-2025',
    nested: { list: ['anna', 3] },
    flag: true,
  });
});

test('renderVars names the key path of a failing template', () => {
  assert.throws(
    () => renderVars({ ok: 'x', deep: { list: ['a', '{{ later }}'] }, later: 'y' }, { now: NOW, env: {} }),
    (err: unknown) =>
      err instanceof TemplateError &&
      JSON.stringify(err.path) === JSON.stringify(['deep', 'list', 1]) &&
      /undefined variable "later"/.test(err.message),
  );
});

test('renderVars treats an empty file as no vars', () => {
  assert.deepEqual(renderVars(null, { now: NOW, env: {}, inherited: { a: 1 } }), { a: 1 });
});

test('a rule test gives the same answer whether or not the dms has told its field types (Betrag: EUR1120.00)', () => {
  const compiled = compileRule({
    id: 'big-invoice',
    when: { 'custom_fields.Betrag': { gt: 1000 } },
    extract: { total: { value: '{{ doc.custom_fields.Betrag }}', type: 'money' } },
    actions: [
      { add_tags: 'teuer' },
      { set_custom_fields: { Rechnungsbetrag: '{{ total }}', Notiz: '{{ doc.custom_fields.Betrag }}' } },
    ],
    tests: [
      {
        document: { custom_fields: { Betrag: 'EUR1120.00' } },
        expect: {
          matched: true,
          changes: { tags: ['teuer'], custom_fields: { Rechnungsbetrag: 1120, Notiz: '1120.00' } },
        },
      },
      { document: { custom_fields: { Betrag: 'EUR12.00' } }, expect: { matched: false } },
    ],
  });
  assert.deepEqual(
    runRuleTests(compiled, { now: NOW }).map((o) => o.message),
    ['test 1: passed', 'test 2: passed'],
  );
});

test('a failing test names tag conditions (any/all/none are operators there, not combinators)', () => {
  const compiled = compileRule({
    id: 'invoices',
    when: { all: [{ tags: { any: ['Rechnung'] } }] },
    tests: [{ document: { tags: ['Posteingang'] }, expect: { matched: true } }],
  });
  const [outcome] = runRuleTests(compiled, { now: NOW });
  assert.match(outcome.message, /did not match: tags any \["Rechnung"\] → false \(saw \["Posteingang"\]\)$/);
});

test('a failing test gives, for a not, the inner condition that held, and not the ones that held elsewhere', () => {
  const compiled = compileRule({
    id: 'unprocessed',
    when: {
      all: [
        { title: { contains: 'Rechnung' } },
        { not: { any: [{ tags: { any: ['done'] } }, { correspondent: 'ACME' }] } },
      ],
    },
    tests: [{ document: { title: 'Rechnung 5', tags: ['done'], correspondent: 'Other' }, expect: { matched: true } }],
  });
  const [outcome] = runRuleTests(compiled, { now: NOW });
  assert.match(outcome.message, /did not match: not \(tags any \["done"\] → true \(saw \["done"\]\)\)$/);
});
