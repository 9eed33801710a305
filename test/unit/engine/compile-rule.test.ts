import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileRule, RuleCompileError, type RuleDefinition } from '../../../server/engine/engine.js';

function compileError(def: unknown): RuleCompileError {
  try {
    compileRule(def as RuleDefinition);
  } catch (err) {
    if (err instanceof RuleCompileError) return err;
    throw err;
  }
  assert.fail('expected a RuleCompileError');
}

const cases: Array<[string, unknown, Array<string | number>, RegExp]> = [
  [
    'lookahead',
    { id: 'r', when: { all: [{ title: 'x' }, { content: { matches: 'Summe(?=\\s)' } }] } },
    ['when', 'all', 1, 'content', 'matches'],
    /lookahead/,
  ],
  [
    'lookbehind',
    { id: 'r', when: { content: { matches: '(?<=EUR )\\d+' } } },
    ['when', 'content', 'matches'],
    /lookbehind/,
  ],
  [
    'a backreference',
    { id: 'r', when: { content: { matches: ['ok', '(a)\\1'] } } },
    ['when', 'content', 'matches', 1],
    /backreferences/,
  ],
  [
    'an unclosed class',
    { id: 'r', extract: { n: { regex: '[0-9' } } },
    ['extract', 'n', 'regex'],
    /missing closing \]/,
  ],
  [
    'two actions in one item',
    { id: 'r', actions: [{ set_title: 'a', add_tags: ['b'] }] },
    ['actions', 0],
    /one action per list item.*set_title and add_tags/,
  ],
  ['modifiers without an action', { id: 'r', actions: [{ if_empty: true }] }, ['actions', 0], /only modifiers/],
  [
    'if_empty outside set_custom_fields',
    { id: 'r', actions: [{ set_title: 'a', if_empty: true }] },
    ['actions', 0, 'if_empty'],
    /only with set_custom_fields/,
  ],
  [
    'create_missing on set_title',
    { id: 'r', actions: [{ set_title: 'x', create_missing: true }] },
    ['actions', 0, 'create_missing'],
    /create_missing works only with/,
  ],
  [
    'path without create_missing',
    { id: 'r', actions: [{ set_storage_path: 'x', path: '{{ title }}' }] },
    ['actions', 0, 'path'],
    /path .* works only with set_storage_path and create_missing: true/,
  ],
  [
    'a tag operator on content',
    { id: 'r', when: { content: { any: ['x'] } } },
    ['when', 'content', 'any'],
    /only on tags/,
  ],
  [
    'a comparison on text',
    { id: 'r', when: { title: { gt: 3 } } },
    ['when', 'title', 'gt'],
    /compares numbers and dates/,
  ],
  [
    'a date comparison with no date',
    { id: 'r', when: { created: { lt: 'yesterday' } } },
    ['when', 'created', 'lt'],
    /relative date such as -30d/,
  ],
  [
    'a number comparison with text',
    { id: 'r', when: { page_count: { gt: 'many' } } },
    ['when', 'page_count', 'gt'],
    /is a number/,
  ],
  [
    'only case_sensitive',
    { id: 'r', when: { title: { case_sensitive: true } } },
    ['when', 'title'],
    /give "title" an operator/,
  ],
  ['two keys in a condition', { id: 'r', when: { title: 'a', content: 'b' } }, ['when'], /exactly one key/],
  ['an unknown field', { id: 'r', when: { colour: 'red' } }, ['when', 'colour'], /unknown field "colour"/],
  [
    'a template that does not parse',
    { id: 'r', actions: [{ set_title: '{{ number ' }] },
    ['actions', 0, 'set_title'],
    /does not parse/,
  ],
  [
    'an unknown filter',
    { id: 'r', actions: [{ add_tags: ['ok', '{{ x | nosuch }}'] }] },
    ['actions', 0, 'add_tags', 1],
    /undefined filter: nosuch/,
  ],
  [
    'a bad template in a custom field',
    { id: 'r', actions: [{ set_custom_fields: { Betrag: '{% if %}' } }] },
    ['actions', 0, 'set_custom_fields', 'Betrag'],
    /does not parse/,
  ],
  [
    'format on a non-date',
    { id: 'r', extract: { n: { regex: '(\\d+)', type: 'number', format: 'dd.MM.yyyy' } } },
    ['extract', 'n', 'format'],
    /only to type: date/,
  ],
  [
    'a date format without a year',
    { id: 'r', extract: { d: { regex: '(\\S+)', type: 'date', format: 'dd.MM' } } },
    ['extract', 'd', 'format'],
    /needs a day.*year/,
  ],
  [
    'a default of the wrong type',
    { id: 'r', extract: { d: { regex: '(\\S+)', type: 'date', default: 'soon' } } },
    ['extract', 'd', 'default'],
    /not a valid date/,
  ],
  ['a reserved extraction name', { id: 'r', extract: { doc: { regex: '(x)' } } }, ['extract', 'doc'], /reserved/],
  [
    'regex and value together',
    { id: 'r', extract: { n: { regex: '(x)', value: '{{ doc.title }}' } } },
    ['extract', 'n'],
    /either regex.*or value/,
  ],
  ['a bad rule id', { id: 'Bad Id' }, ['id'], /lower-case/],
  ['an unknown trigger', { id: 'r', on: ['added', 'deleted'] }, ['on', 1], /unknown trigger "deleted"/],
];

for (const [name, def, path, message] of cases) {
  test(`compileRule rejects ${name} at ${path.join('/') || '(rule)'}`, () => {
    const err = compileError(def);
    assert.deepEqual(err.path, path);
    assert.match(err.message, message);
  });
}

test('compileRule accepts the DESIGN example rule', () => {
  const rule = compileRule({
    id: 'acme-invoice',
    on: ['added', 'updated', 'manual'],
    when: {
      all: [
        { correspondent: 'ACME' },
        { content: { matches: '(?i)rechnung|invoice' } },
        { not: { tags: { any: ['processed'] } } },
      ],
    },
    extract: {
      number: { from: 'content', regex: 'Nr\\.?\\s*(?<value>\\d+)', required: true },
      total: { regex: ['Summe\\s+([\\d.,]+)', 'Total\\s+([\\d.,]+)'], type: 'money', pick: 'last' },
      issued: { regex: '(\\d{1,2}\\.\\d{1,2}\\.\\d{4})', type: 'date', format: 'dd.MM.yyyy' },
    },
    actions: [
      { set_title: "{{ doc.correspondent }} {{ issued | date: '%Y-%m' }} #{{ number }}" },
      { add_tags: ['invoice'], create_missing: true },
      { set_custom_fields: { Amount: '{{ total }}' }, if_empty: true },
    ],
  });
  assert.equal(rule.id, 'acme-invoice');
  assert.equal(rule.extract.length, 3);
  assert.equal(rule.actions.length, 3);
  assert.equal(rule.actions[2].payload.kind === 'custom' && rule.actions[2].payload.fields[0].passThrough, 'total');
});
