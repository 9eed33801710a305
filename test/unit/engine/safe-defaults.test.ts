import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileRule, runRuleTests, type RuleDefinition } from '../../../server/engine/engine.js';
import { NOW, run } from './helpers.js';
import { sample } from './fixtures/sample-documents.js';

// Document 1 has Betrag EUR 84.37, Rechnungsnummer SWM-2025-0012345, title "Stromrechnung Januar 2025".
const missed: RuleDefinition = {
  id: 'r',
  extract: {
    v: { regex: 'Gesamtsumme: (\\S+)', type: 'money' },
    nr: { regex: 'Belegnummer (\\S+)' },
    label: { value: "{{ nr | append: '!' }}" },
  },
  actions: [
    { set_custom_fields: { Betrag: '{{ v }}', Rechnungsnummer: 'Nr. {{ nr }}', Zahlungsstatus: 'offen' } },
    { set_title: 'Beleg {{ nr }}' },
    { set_created: '{{ v }}' },
    { add_note: 'Betrag {{ v }}' },
    { add_tags: ['{{ label }}', 'geprüft'] },
  ],
};

test('an optional extraction that finds nothing leaves the fields a person typed alone', () => {
  const result = run(sample(1), [missed]);
  const r = result.results[0];
  assert.equal(r.status, 'matched', r.error ?? '');
  assert.deepEqual(result.changes.custom_fields, { Zahlungsstatus: 'offen' });
  assert.equal(result.changes.title, undefined);
  assert.equal(result.changes.created, undefined);
  assert.equal(result.changes.notes, undefined);
  assert.deepEqual(result.changes.tags, ['bezahlt', 'Rechnung', 'rules-processed', 'geprüft']);
  assert.match(
    r.actions[0].detail ?? '',
    /Betrag kept: v found no value \(optional extraction\); Rechnungsnummer kept: nr found no value/,
  );
  assert.deepEqual(
    r.actions.map((a) => a.status),
    ['planned', 'skipped', 'skipped', 'skipped', 'planned'],
  );
  assert.match(
    r.conditions.find((c) => c.path === 'extract/label')?.description ?? '',
    /nr found no value \(no value\)/,
  );
});

test('a template that guards a missing value with default or if still renders', () => {
  const rule: RuleDefinition = {
    id: 'r',
    extract: { nr: { regex: 'Belegnummer (\\S+)' } },
    actions: [{ set_title: "Beleg {{ nr | default: 'ohne Nummer' }}{% if nr %} {{ nr }}{% endif %}" }],
  };
  assert.equal(run(sample(1), [rule]).changes.title, 'Beleg ohne Nummer');
});

test('a value that was found is written as before', () => {
  const rule: RuleDefinition = {
    id: 'r',
    extract: { v: { regex: 'Rechnungsbetrag: ([\\d,]+ EUR)', type: 'money' } },
    actions: [{ set_custom_fields: { Betrag: '{{ v }}', Rechnungsnummer: 'Betrag {{ v }}' } }],
  };
  assert.deepEqual(run({ ...sample(1), custom_fields: {} }, [rule]).changes.custom_fields, {
    Betrag: { amount: 84.37, currency: 'EUR' },
    Rechnungsnummer: 'Betrag 84.37',
  });
});

test('a rule test asserts that a field stays unchanged', () => {
  const compiled = compileRule({
    ...missed,
    tests: [
      {
        name: 'missed amount',
        document: { content: 'nichts', custom_fields: { Betrag: 'EUR12.00' } },
        expect: { matched: true, unchanged: ['custom_fields.Betrag', 'title', 'created'] },
      },
      {
        name: 'status is set',
        document: { content: 'nichts' },
        expect: { matched: true, unchanged: ['custom_fields.Zahlungsstatus'] },
      },
      { name: 'no such field', document: {}, expect: { matched: true, unchanged: ['titel'] } },
    ],
  });
  const [ok, changed, unknown] = runRuleTests(compiled, { now: NOW });
  assert.equal(ok.message, 'missed amount: passed');
  assert.equal(
    changed.message,
    'status is set: custom_fields.Zahlungsstatus: expected unchanged, but the rule sets it to "offen"',
  );
  assert.deepEqual(changed.path, ['tests', 1, 'expect', 'unchanged', 0]);
  assert.match(unknown.message, /unchanged names "titel", which is no field/);
});
