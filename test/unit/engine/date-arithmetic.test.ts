import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compileRule,
  emptyDocument,
  runRuleTests,
  RuleCompileError,
  type RuleDefinition,
} from '../../../server/engine/engine.js';
import { NOW, run } from './helpers.js';

function title(template: string, content = '', extract: RuleDefinition['extract'] = {}): string {
  const result = run({ ...emptyDocument(), title: 'old', content, created: '2025-01-31' }, [
    { id: 'r', extract, actions: [{ set_title: template }] },
  ]).results[0];
  assert.equal(result.status, 'matched', result.error ?? '');
  return /→ "(.*)"$/.exec(result.actions[0].detail ?? '')?.[1] ?? '';
}

const cases: Array<[string, string]> = [
  ["{{ '2025-01-31' | add_months: 1 }}", '2025-02-28'],
  ["{{ '2024-01-31' | add_months: 1 }}", '2024-02-29'],
  ["{{ '2025-03-31' | add_months: -1 }}", '2025-02-28'],
  ["{{ '2024-02-29' | add_years: 1 }}", '2025-02-28'],
  ["{{ '2024-02-29' | add_years: 4 }}", '2028-02-29'],
  ["{{ '2024-12-20' | add_days: 14 }}", '2025-01-03'],
  ["{{ '2024-02-28' | add_days: 1 }}", '2024-02-29'],
  ["{{ '2025-02-28' | add_days: 1 }}", '2025-03-01'],
  ["{{ '2025-01-01' | add_weeks: 2 }}", '2025-01-15'],
  ["{{ '2025-01-31' | shift_date: 1, 'month' }}", '2025-02-28'],
  ["{{ '2025-01-10' | shift_date: '14', 'Tage' }}", '2025-01-24'],
  ["{{ '2025-01-10' | shift_date: 3, 'Jahre' }}", '2028-01-10'],
  ["{{ '2025-01-10' | shift_date: '+30d' }}", '2025-02-09'],
  ['{{ doc.created | add_months: 1 }}', '2025-02-28'],
  ["{{ '10.01.2025' | add_days: '-10' }}", '2024-12-31'],
];
for (const [template, expected] of cases) {
  test(`date arithmetic: ${template} → ${expected}`, () => {
    assert.equal(title(template), expected);
  });
}

test('the amount and unit come from the document: "zahlbar innerhalb 14 Tagen", "Garantie 3 Jahre"', () => {
  const content = 'Rechnungsdatum: 20.12.2024\nZahlbar innerhalb 14 Tagen.\nGarantie: 3 Jahre';
  const extract: RuleDefinition['extract'] = {
    issued: { regex: 'Rechnungsdatum: (\\S+)', type: 'date' },
    term: { regex: 'innerhalb (\\d+) Tagen', type: 'int' },
    warranty: { regex: 'Garantie: (?<value>\\d+) (?<unit>\\w+)', groups: { value: { type: 'int' }, unit: {} } },
  };
  assert.equal(
    title('{{ issued | add_days: term }} / {{ issued | shift_date: value, unit }}', content, extract),
    '2025-01-03 / 2027-12-20',
  );
});

test('date arithmetic in a check: overdue when the payment term has passed', () => {
  const def = (days: number): RuleDefinition => ({
    id: 'overdue',
    extract: { term: { value: String(days), type: 'int' } },
    when: {
      check: '{% assign due = doc.created | add_days: term %}{% if due < today %}overdue{% endif %}',
    },
  });
  // NOW is 2025-03-15; created 2025-03-01.
  const doc = { ...emptyDocument(), created: '2025-03-01' };
  assert.equal(run(doc, [def(10)]).results[0].status, 'matched');
  assert.equal(run(doc, [def(14)]).results[0].status, 'not_matched');
  assert.equal(run(doc, [def(30)]).results[0].status, 'not_matched');
});

test('a wrong amount or unit is an error of the rule that says what to give', () => {
  const fails = (template: string, pattern: RegExp) => {
    const result = run({ ...emptyDocument(), title: 'x' }, [{ id: 'r', actions: [{ set_title: template }] }])
      .results[0];
    assert.equal(result.status, 'error');
    assert.match(result.error ?? '', pattern);
  };
  fails("{{ '2025-01-01' | add_days: '1,5' }}", /add_days: the amount "1,5" is not a whole number/);
  fails("{{ '2025-01-01' | add_days }}", /add_days needs an amount/);
  fails("{{ '2025-01-01' | shift_date: 2, 'fortnights' }}", /unit "fortnights" is none of days, weeks, months, years/);
  fails("{{ '2025-01-01' | shift_date: 2 }}", /for a computed amount give it and a unit/);
  fails("{{ '2025-01-01' | add_years: 9000 }}", /outside the years 1000 to 9999/);
  fails("{{ '2025-01-01' | shift_date: '+9000y' }}", /shift_date: the result lies outside the years 1000 to 9999/);
});

test('today is the date of now, and an extraction may not be called today', () => {
  assert.equal(title('{{ today }}'), NOW.toISOString().slice(0, 10));
  assert.throws(
    () => compileRule({ id: 'r', extract: { today: { value: 'x' } } }),
    (err: unknown) => err instanceof RuleCompileError,
  );
});

test('a test pins now, so a rule that writes a date from today can assert its value', () => {
  const def: RuleDefinition = {
    id: 'reminder',
    actions: [{ set_custom_fields: { Wiedervorlage: '{{ today | add_months: 1 }}' } }, { add_note: 'seen {{ now }}' }],
    tests: [
      {
        name: 'end of January',
        now: '2025-01-31',
        document: {},
        expect: {
          matched: true,
          changes: { custom_fields: { Wiedervorlage: '2025-02-28' }, notes: ['seen 2025-01-31T00:00:00.000Z'] },
        },
      },
      {
        name: 'a time without a zone is UTC',
        now: '2024-01-31T23:30',
        document: {},
        expect: { matched: true, changes: { custom_fields: { Wiedervorlage: '2024-02-29' } } },
      },
      {
        name: 'without now the caller clock',
        document: {},
        expect: { matched: true, changes: { custom_fields: { Wiedervorlage: '2025-04-15' } } },
      },
      { name: 'not a date', now: '2025-02-30', document: {}, expect: { matched: true } },
    ],
  };
  const outcomes = runRuleTests(compileRule(def), { now: NOW });
  assert.deepEqual(
    outcomes.map((o) => o.ok),
    [true, true, true, false],
    outcomes.map((o) => o.message).join('\n'),
  );
  assert.deepEqual(outcomes[3].path, ['tests', 3, 'now']);
  assert.match(outcomes[3].message, /now must be a date such as 2025-03-01/);
});
