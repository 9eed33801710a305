import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compileRule,
  emptyDocument,
  RuleCompileError,
  runRuleTests,
  type RuleDefinition,
  type RuleDocument,
} from '../../../server/engine/engine.js';
import { NOW, run } from './helpers.js';

const doc = (content: string): RuleDocument => ({ ...emptyDocument(), id: 1, content });

test('one regex with several named groups gives several typed values', () => {
  const rule: RuleDefinition = {
    id: 'order',
    extract: {
      ids: {
        regex: 'Bestellung (?<order>\\d+) vom (?<ordered>\\S+) über (?<total>[\\d.,]+ EUR)',
        groups: { order: { type: 'int' }, ordered: { type: 'date' }, total: { type: 'money' } },
      },
    },
    actions: [{ set_title: 'Bestellung {{ order }} ({{ ordered }}, {{ total.amount }})' }],
  };
  const result = run(doc('Ihre Bestellung 4711 vom 03.02.2025 über 1.234,50 EUR'), [rule]);
  const r = result.results[0];
  assert.equal(r.status, 'matched', r.error ?? JSON.stringify(r.conditions));
  assert.deepEqual(r.extracted, { order: 4711, ordered: '2025-02-03', total: { amount: 1234.5, currency: 'EUR' } });
  assert.equal(result.changes.title, 'Bestellung 4711 (2025-02-03, 1234.5)');
  assert.deepEqual(
    r.conditions.map((c) => c.path),
    ['extract/ids', 'extract/ids/groups/order', 'extract/ids/groups/ordered', 'extract/ids/groups/total'],
  );
});

test('groups: pick all gives a list per group; a required group that is missing is a non-match with a reason', () => {
  const all: RuleDefinition = {
    id: 'lines',
    extract: {
      lines: {
        regex: '(?m)^(?<item>\\w+) (?<price>[\\d,]+)$',
        pick: 'all',
        groups: { item: {}, price: { type: 'number' } },
      },
    },
  };
  assert.deepEqual(run(doc('Apfel 1,20\nBirne 2,50'), [all]).results[0].extracted, {
    item: ['Apfel', 'Birne'],
    price: [1.2, 2.5],
  });

  const required: RuleDefinition = {
    id: 'ref',
    extract: {
      ids: { regex: 'Order (?<order>\\d+)(?: Ref (?<ref>\\S+))?', groups: { order: {}, ref: { required: true } } },
    },
  };
  const r = run(doc('Order 12'), [required]).results[0];
  assert.equal(r.status, 'not_matched');
  assert.match(
    r.conditions.at(-1)?.description ?? '',
    /extract ref \(required\): the group took no part in the match → not matched/,
  );
  assert.deepEqual(run(doc('Order 12 Ref A-7'), [required]).results[0].extracted, { order: '12', ref: 'A-7' });
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

test('groups are checked at save: each name a named group of the pattern, new, typed per group', () => {
  assert.match(
    compileError({ id: 'r', extract: { ids: { regex: 'Nr (?<nr>\\d+)', groups: { order: {} } } } }),
    /no named group \(\?<order>…\)/,
  );
  assert.match(
    compileError({ id: 'r', extract: { ids: { value: '{{ doc.title }}', groups: { a: {} } } } }),
    /give regex, not value/,
  );
  assert.match(
    compileError({ id: 'r', extract: { ids: { regex: '(?<a>x)', type: 'int', groups: { a: {} } } } }),
    /give type to each group/,
  );
  assert.match(
    compileError({ id: 'r', extract: { a: { regex: '(x)' }, ids: { regex: '(?<a>x)', groups: { a: {} } } } }),
    /"a" is already extracted above/,
  );
  assert.match(compileError({ id: 'r', extract: { ids: { regex: '(?<doc>x)', groups: { doc: {} } } } }), /reserved/);
  assert.match(
    compileError({ id: 'r', extract: { d: { regex: '(x)', type: 'date', locale: 'xx-notalocale-123' } } }),
    /locale "xx-notalocale-123"/,
  );
});

const localeCases: Array<[string, string, string, unknown]> = [
  ['fr', 'date', 'le 1er mars 2024', '2024-03-01'],
  ['fr', 'date', '3 févr. 2024', '2024-02-03'],
  ['es', 'date', '3 de febrero de 2024', '2024-02-03'],
  ['it', 'date', 'lunedì 3 marzo 2025', '2025-03-03'],
  ['nl', 'date', '3 maart 2024', '2024-03-03'],
  ['fr', 'date', '03/02/2024', '2024-02-03'],
  ['en-US', 'date', '03/02/2024', '2024-03-02'],
  ['fr', 'number', '1 234,56', 1234.56],
  ['es', 'number', '1.234,56', 1234.56],
  ['en', 'number', '1.234', 1.234],
  ['de', 'number', '1.234', 1234],
  ['de-CH', 'number', "1'234.50", 1234.5],
  ['fr', 'money', '1 234,56 €', { amount: 1234.56, currency: 'EUR' }],
  ['en', 'number', '1,5', undefined],
];
for (const [locale, type, text, expected] of localeCases) {
  test(`locale ${locale}: ${type} "${text}" → ${JSON.stringify(expected)}`, () => {
    const rule: RuleDefinition = { id: 'r', extract: { v: { regex: 'Wert: (.+)', type: type as 'date', locale } } };
    assert.deepEqual(run(doc(`Wert: ${text}`), [rule]).results[0].extracted.v, expected);
  });
}

test("locale with a format reads that language's month names; a group inherits the extraction's locale", () => {
  const withFormat: RuleDefinition = {
    id: 'r',
    extract: { d: { regex: 'le (.+)', type: 'date', format: 'd MMMM yyyy', locale: 'fr' } },
  };
  assert.equal(run(doc('Paris, le 14 juillet 2025'), [withFormat]).results[0].extracted.d, '2025-07-14');
  const grouped: RuleDefinition = {
    id: 'r',
    extract: {
      f: {
        regex: 'Facture (?<nr>\\S+) du (?<du>.+?) : (?<montant>.+)',
        locale: 'fr',
        groups: { nr: {}, du: { type: 'date' }, montant: { type: 'money', currency: 'EUR' } },
      },
    },
  };
  assert.deepEqual(run(doc('Facture F-12 du 2 août 2025 : 1 020,00'), [grouped]).results[0].extracted, {
    nr: 'F-12',
    du: '2025-08-02',
    montant: { amount: 1020, currency: 'EUR' },
  });
});

test('parse_number and parse_date take a locale in templates', () => {
  const rule: RuleDefinition = {
    id: 'r',
    actions: [{ set_title: "{{ '1 234,5' | parse_number: 'fr' }} {{ '3 de mayo de 2025' | parse_date: '', 'es' }}" }],
  };
  assert.equal(run(doc(''), [rule]).changes.title, '1234.5 2025-05-03');
});

test('rule tests assert group values by name', () => {
  const compiled = compileRule({
    id: 'r',
    extract: {
      ids: {
        regex: 'Order (?<order>\\d+) Ref (?<ref>\\S+)',
        groups: { order: { type: 'string' }, ref: { type: 'string' } },
      },
    },
    tests: [
      { document: { content: 'Order 12 Ref A-7' }, expect: { matched: true, extracted: { order: '12', ref: 'A-7' } } },
    ],
  });
  assert.deepEqual(
    runRuleTests(compiled, { now: NOW }).map((o) => o.message),
    ['test 1: passed'],
  );
});
