import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateRules, compileRule, runRuleTests, type RuleDefinition } from '../../../server/engine/engine.js';
import { run, NOW } from './helpers.js';
import { sample, CUSTOM_FIELD_TYPES } from './fixtures/sample-documents.js';

// ---- extraction, one case per type and pick, on the sample documents ----
const extractions: Array<[string, number, RuleDefinition['extract'], Record<string, unknown>]> = [
  ['string with a named group', 1, { nr: { regex: 'Rechnung Nr\\.\\s*(?<value>\\S+)' } }, { nr: 'SWM-2025-0012345' }],
  [
    'German money',
    1,
    { total: { regex: 'Rechnungsbetrag:\\s+([\\d.,]+ EUR)', type: 'money' } },
    { total: { amount: 84.37, currency: 'EUR' } },
  ],
  [
    'English money with a code',
    5,
    { total: { regex: 'Total due\\s+(USD [\\d.,]+)', type: 'money' } },
    { total: { amount: 1250, currency: 'USD' } },
  ],
  ['German thousands as number', 4, { tax: { regex: 'Einkommensteuer\\s+([\\d.,]+)', type: 'number' } }, { tax: 8412 }],
  ['int', 1, { kwh: { regex: 'Verbrauch: (\\d+) kWh', type: 'int' } }, { kwh: 212 }],
  [
    'German date dd.MM.yyyy',
    1,
    { d: { regex: 'Rechnungsdatum: (\\S+)', type: 'date', format: 'dd.MM.yyyy' } },
    { d: '2025-01-20' },
  ],
  ['English long date', 5, { d: { regex: 'Invoice Date: (.+)', type: 'date' } }, { d: '2025-03-03' }],
  ['pick first (default)', 6, { p: { regex: '(\\d+,\\d\\d) B', type: 'number' } }, { p: 1.39 }],
  ['pick last', 6, { p: { regex: '(\\d+,\\d\\d) B', type: 'number', pick: 'last' } }, { p: 14.99 }],
  ['pick all', 6, { p: { regex: '(\\d+,\\d\\d) B', type: 'number', pick: 'all' } }, { p: [1.39, 2.49, 3.58, 14.99] }],
  [
    'several patterns: the first that matches',
    2,
    { r: { regex: ['Rechnungsbetrag:\\s+(\\S+)', 'Rechnungsbetrag\\s+([\\d,]+)'], type: 'money', currency: 'EUR' } },
    { r: { amount: 39.95, currency: 'EUR' } },
  ],
  ['default when nothing matches', 3, { n: { regex: 'Rechnung Nr (\\d+)', default: 'none' } }, { n: 'none' }],
  ['bool', 1, { paid: { regex: '(SEPA)', type: 'bool', default: false } }, { paid: false }],
  ['from another field', 1, { f: { from: 'original_file_name', regex: '_(\\d{4})-', type: 'int' } }, { f: 2025 }],
  [
    'from notes',
    1,
    { when_paid: { from: 'notes', regex: 'am (\\S+) bezahlt', type: 'date' } },
    { when_paid: '2025-02-05' },
  ],
  [
    'a value template using an earlier value',
    1,
    { d: { regex: 'Rechnungsdatum: (\\S+)', type: 'date' }, month: { value: "{{ d | date: '%m' }}", type: 'int' } },
    { d: '2025-01-20', month: 1 },
  ],
];
for (const [name, id, extract, expected] of extractions) {
  test(`extraction: ${name}`, () => {
    const result = run(sample(id), [{ id: 'r', extract }]).results[0];
    assert.equal(result.status, 'matched', JSON.stringify(result));
    assert.deepEqual(result.extracted, expected);
  });
}

test('a required extraction that finds nothing makes the rule not match, and the trace says why', () => {
  const result = run(sample(3), [
    { id: 'r', extract: { nr: { regex: 'Rechnung Nr (\\d+)', required: true } }, actions: [{ set_title: 'x' }] },
  ]).results[0];
  assert.equal(result.status, 'not_matched');
  assert.deepEqual(result.actions, []);
  assert.match(result.conditions.at(-1)?.description ?? '', /extract nr \(required\): no pattern matched in content/);
});

test('a value that does not parse to its type counts as missing', () => {
  const result = run(sample(1), [
    { id: 'r', extract: { d: { regex: 'Kundennummer: (\\S+)', type: 'date', required: true } } },
  ]).results[0];
  assert.equal(result.status, 'not_matched');
  assert.match(result.conditions.at(-1)?.description ?? '', /not a valid date/);
});

// ---- actions ----
test('actions: title, tags, correspondent, type, storage path, created, ASN, note', () => {
  const ev = run(sample(7), [
    {
      id: 'r',
      extract: { d: { regex: 'München, (\\S+)', type: 'date' } },
      actions: [
        { set_title: "SWM Abschlag {{ d | date: '%m/%Y' }}" },
        { add_tags: ['Vertrag', 'neu'], create_missing: true },
        { remove_tags: 'posteingang' },
        { set_correspondent: 'Stadtwerke München' },
        { set_document_type: 'Vertrag' },
        { set_storage_path: 'Finanzen' },
        { set_created: '{{ d }}' },
        { set_archive_serial_number: '{{ 100 | plus: 5 }}' },
        { add_note: 'Abschlag geändert am {{ d }}' },
      ],
    },
  ]);
  const r = ev.results[0];
  assert.equal(r.status, 'matched', r.error ?? '');
  assert.deepEqual(ev.changes, {
    title: 'SWM Abschlag 03/2025',
    correspondent: 'Stadtwerke München',
    document_type: 'Vertrag',
    storage_path: 'Finanzen',
    tags: ['Vertrag', 'neu'],
    archive_serial_number: 105,
    notes: ['Abschlag geändert am 2025-03-07'],
  });
  assert.deepEqual(ev.createMissing, { tags: ['Vertrag', 'neu'] });
  // The sample's created date already is 2025-03-07, so only that action finds nothing to do.
  assert.deepEqual(
    r.actions.map((a) => a.status),
    ['planned', 'planned', 'planned', 'planned', 'planned', 'planned', 'unchanged', 'planned', 'planned'],
  );
  assert.deepEqual(r.changes.title, { from: 'Scan_2025-03-10_081512', to: 'SWM Abschlag 03/2025' });
});

test('set_tags replaces all tags; clearing a name with null', () => {
  const ev = run(sample(1), [{ id: 'r', actions: [{ set_tags: ['Steuer'] }, { set_storage_path: null }] }]);
  assert.deepEqual(ev.changes, { tags: ['Steuer'], storage_path: null });
});

test('set_custom_fields converts by the field type and keeps money typed with its currency', () => {
  const ev = run(sample(6), [
    {
      id: 'r',
      extract: {
        sum: { regex: 'SUMME EUR\\s+([\\d,]+)', type: 'money', currency: 'EUR' },
        bon: { regex: 'Bon-Nr\\. (\\d+)' },
      },
      actions: [
        {
          set_custom_fields: {
            Betrag: '{{ sum }}',
            'Fällig am': '08.03.2025',
            Rechnungsnummer: 'BON-{{ bon }}',
            Zahlungsstatus: 'bezahlt',
          },
        },
      ],
    },
  ]);
  assert.deepEqual(ev.changes.custom_fields, {
    Betrag: { amount: 23.74, currency: 'EUR' },
    'Fällig am': '2025-03-08',
    Rechnungsnummer: 'BON-2291',
    Zahlungsstatus: 'bezahlt',
  });
});

test('a custom field value that cannot be converted makes the rule an error and leaves no partial changes', () => {
  const ev = run(sample(6), [
    { id: 'bad', actions: [{ set_title: 'changed' }, { set_custom_fields: { 'Fällig am': 'bald' } }] },
    { id: 'good', actions: [{ add_tags: 'ok' }] },
  ]);
  assert.equal(ev.results[0].status, 'error');
  assert.match(ev.results[0].error ?? '', /Fällig am.*date/);
  assert.equal(ev.results[0].actions.at(-1)?.status, 'failed');
  assert.equal(ev.results[1].status, 'matched', 'the other rules go on');
  assert.deepEqual(ev.changes, { tags: ['Posteingang', 'Receipt', 'ok'] });
});

test('if_empty never overwrites a value a person set, but fills empty fields', () => {
  const ev = run(sample(1), [
    {
      id: 'r',
      actions: [
        { set_custom_fields: { Betrag: '1,00', Rechnungsnummer: 'X', 'Fällig am': '2025-12-01' }, if_empty: true },
      ],
    },
  ]);
  assert.deepEqual(ev.changes, {});
  assert.equal(ev.results[0].actions[0].status, 'unchanged');
  assert.match(ev.results[0].actions[0].detail ?? '', /Betrag kept \(if_empty/);
  const empty = run(sample(3), [{ id: 'r', actions: [{ set_custom_fields: { Betrag: '642,18' }, if_empty: true }] }]);
  assert.deepEqual(empty.changes.custom_fields, { Betrag: { amount: 642.18, currency: null } });
});

test('a template error makes that rule an error, never a silent false, and the next rule still runs', () => {
  const ev = run(sample(1), [
    { id: 'a', actions: [{ set_title: '{{ vars.missing_value }}' }] },
    { id: 'b', actions: [{ set_title: 'B' }] },
  ]);
  assert.equal(ev.results[0].status, 'error');
  assert.match(ev.results[0].error ?? '', /undefined variable "vars.missing_value"/);
  assert.equal(ev.results[1].status, 'matched');
  assert.equal(ev.changes.title, 'B');
});

test('templates see doc, vars, now, rule and extracted values; default works for missing vars', () => {
  const ev = run(
    sample(2),
    [
      {
        id: 'ctx',
        description: 'Kontext',
        actions: [
          {
            set_title:
              "{{ rule.id }} {{ vars.prefix }} {{ now | date: '%Y' }} {{ doc.custom_fields.Betrag }} {{ vars.nope | default: 'dflt' }}",
          },
        ],
      },
    ],
    { vars: { prefix: 'P' } },
  );
  assert.equal(ev.changes.title, 'ctx P 2025 39.95 dflt');
});

// ---- order, conflicts, stop, triggers ----
test('later rules see earlier changes', () => {
  const ev = run(sample(6), [
    { id: 'a', actions: [{ add_tags: 'Quittung' }] },
    { id: 'b', when: { tags: { any: ['quittung'] } }, actions: [{ set_title: 'seen' }] },
  ]);
  assert.equal(ev.results[1].status, 'matched');
  assert.equal(ev.changes.title, 'seen');
});

test('two rules setting one field differently: the later wins and the conflict is recorded', () => {
  const ev = run(sample(1), [
    { id: 'first', actions: [{ set_document_type: 'Bescheid' }] },
    { id: 'second', actions: [{ set_document_type: 'Vertrag' }] },
  ]);
  assert.equal(ev.changes.document_type, 'Vertrag');
  assert.deepEqual(ev.conflicts, [
    { field: 'document_type', rules: ['first', 'second'], values: ['Bescheid', 'Vertrag'] },
  ]);
  assert.match(ev.results[1].actions[0].detail ?? '', /overrides "Bescheid" set by rule first/);
});

test('adding and removing one tag in two rules is a conflict; agreeing rules are not', () => {
  const ev = run(sample(1), [
    { id: 'a', actions: [{ add_tags: 'neu' }, { set_title: 'T' }] },
    { id: 'b', actions: [{ remove_tags: 'Neu' }, { set_title: 'T' }] },
  ]);
  assert.deepEqual(ev.conflicts, [{ field: 'tags.neu', rules: ['a', 'b'], values: ['+', '-'] }]);
});

test('stop: true after a match skips every later rule, with the reason', () => {
  const ev = run(sample(1), [
    { id: 'a', actions: [{ set_title: 'A' }], stop: true },
    { id: 'b', actions: [{ set_title: 'B' }] },
  ]);
  assert.equal(ev.changes.title, 'A');
  assert.equal(ev.results[1].status, 'skipped');
  assert.match(ev.results[1].error ?? '', /rule a matched earlier and has stop: true/);
});

test('stop does nothing when its rule does not match', () => {
  const ev = run(sample(1), [
    { id: 'a', when: { title: 'nope' }, stop: true },
    { id: 'b', actions: [{ set_title: 'B' }] },
  ]);
  assert.equal(ev.results[1].status, 'matched');
});

test('rules are skipped by trigger and when disabled; jobs run every enabled rule', () => {
  const defs: RuleDefinition[] = [
    { id: 'on-added', on: ['added'], actions: [{ set_title: 'A' }] },
    { id: 'off', enabled: false, actions: [{ set_title: 'X' }] },
  ];
  const manual = run(sample(1), defs, { trigger: 'manual' });
  assert.deepEqual(
    manual.results.map((r) => r.status),
    ['skipped', 'skipped'],
  );
  assert.match(manual.results[0].error ?? '', /runs on added, not on manual/);
  assert.match(manual.results[1].error ?? '', /disabled/);
  const job = run(sample(1), defs, { trigger: 'job' });
  assert.deepEqual(
    job.results.map((r) => r.status),
    ['matched', 'skipped'],
  );
});

// ---- idempotency ----
test('idempotency: evaluating the result again plans nothing', () => {
  const defs: RuleDefinition[] = [
    {
      id: 'telekom',
      when: { correspondent: 'Telekom Deutschland GmbH' },
      extract: {
        total: { regex: 'Rechnungsbetrag\\s+([\\d,]+ EUR)', type: 'money' },
        nr: { regex: 'Rechnungsnummer: (\\S+)' },
        d: { regex: 'Rechnungsdatum: (\\S+)', type: 'date' },
      },
      actions: [
        { set_title: "Telekom {{ d | date: '%Y-%m' }} {{ nr }}" },
        { add_tags: ['Telefon', 'Rechnung'], create_missing: true },
        { set_custom_fields: { Betrag: '{{ total }}', Rechnungsnummer: '{{ nr }}', Zahlungsstatus: 'bezahlt' } },
        { set_created: '{{ d }}' },
        { add_note: 'Betrag {{ total | money: "de" }}' },
      ],
    },
  ];
  const compiled = defs.map((d) => ({ compiled: compileRule(d), file: 'f.yml', vars: {} }));
  const first = evaluateRules({
    document: sample(10),
    rules: compiled,
    trigger: 'added',
    now: NOW,
    customFieldTypes: CUSTOM_FIELD_TYPES,
  });
  assert.ok(Object.keys(first.changes).length > 0);
  const second = evaluateRules({
    document: first.document,
    rules: compiled,
    trigger: 'updated',
    now: NOW,
    customFieldTypes: CUSTOM_FIELD_TYPES,
  });
  assert.deepEqual(second.changes, {});
  assert.ok(
    second.results[0].actions.every((a) => a.status === 'unchanged'),
    JSON.stringify(second.results[0].actions),
  );
});

test('create_missing lists only names the final document uses, from rules that succeeded', () => {
  const ev = run(sample(1), [
    {
      id: 'a',
      actions: [
        { add_tags: ['neu', 'temp'], create_missing: true },
        { set_correspondent: 'Neue Firma', create_missing: true },
      ],
    },
    { id: 'b', actions: [{ remove_tags: 'temp' }] },
    { id: 'broken', actions: [{ set_document_type: 'Nie', create_missing: true }, { set_title: '{{ vars.nope }}' }] },
  ]);
  assert.deepEqual(ev.createMissing, { tags: ['neu'], correspondents: ['Neue Firma'] });
  assert.equal(ev.changes.document_type, undefined, 'the failed rule left no changes');
});

test('typed pass-through: "{{ total }}" writes the extracted money with its own currency', () => {
  const ev = run(sample(5), [
    {
      id: 'r',
      extract: { total: { regex: 'Total due\\s+(USD [\\d.,]+)', type: 'money' } },
      actions: [{ set_custom_fields: { Betrag: '{{ total }}' } }],
    },
  ]);
  // The sample already holds USD1250.00, so the value holds and nothing is written.
  assert.equal(ev.results[0].actions[0].status, 'unchanged');
  const fresh = sample(5);
  fresh.custom_fields = {};
  const ev2 = run(fresh, [
    {
      id: 'r',
      extract: { total: { regex: 'Total due\\s+(USD [\\d.,]+)', type: 'money' } },
      actions: [{ set_custom_fields: { Betrag: '{{ total }}', Rechnungsnummer: 'Total {{ total }}' } }],
    },
  ]);
  assert.deepEqual(ev2.changes.custom_fields, {
    Betrag: { amount: 1250, currency: 'USD' },
    Rechnungsnummer: 'Total 1250.00',
  });
});

test('a title longer than 128 code points is cut at 128 code points, never inside an emoji', () => {
  const title = `${'a'.repeat(127)}😀😀 tail`;
  const result = run(sample(1), [{ id: 'r', actions: [{ set_title: title }] }]).results[0];
  const written = (result.changes.title as { to: string }).to;
  assert.equal(Array.from(written).length, 128);
  assert.equal(written, `${'a'.repeat(127)}😀`, 'the emoji stays whole (129 UTF-16 units)');
  assert.ok(!/[\uD800-\uDBFF]$/.test(written), 'no lone high surrogate at the end');
});

test('clearing a custom field the document does not have is no change (no phantom null → null)', () => {
  const rule: RuleDefinition = {
    id: 'clear-number',
    actions: [{ set_custom_fields: { Rechnungsnummer: '' } }],
    tests: [
      { document: { title: 'x' }, expect: { matched: true, changes: { custom_fields: { Rechnungsnummer: null } } } },
    ],
  };
  const evaluation = run({ ...sample(1), custom_fields: {} }, [rule]);
  assert.deepEqual(evaluation.results[0].changes, {});
  assert.deepEqual(evaluation.changes, {});
  assert.equal(evaluation.results[0].actions[0].status, 'unchanged');
  const [outcome] = runRuleTests(compileRule(rule), { now: NOW });
  assert.match(outcome.message, /Rechnungsnummer: expected null, but the rule does not change it/);
});

test('if_changed: an action runs only when the rules before it changed the document (mark what the rules changed)', () => {
  const rules: RuleDefinition[] = [
    { id: 'retitle', when: { content: { contains: 'Rechnungsbetrag' } }, actions: [{ set_title: 'Strom' }] },
    { id: 'mark-changed', actions: [{ add_tags: 'rules-changed', if_changed: true }] },
  ];
  const changed = run(sample(1), rules);
  assert.deepEqual(changed.changes.tags?.includes('rules-changed'), true);
  assert.equal(changed.results[1].actions[0].status, 'planned');
  const again = run(changed.document, rules);
  assert.deepEqual(again.changes, {});
  assert.equal(again.results[1].actions[0].status, 'skipped');
  assert.match(again.results[1].actions[0].detail ?? '', /if_changed: the rules changed nothing/);
});
