import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CUSTOM_TEMPLATE_FILTERS, emptyDocument, TEMPLATE_FILTERS } from '../../../server/engine/index.js';
import { run } from './helpers.js';

function render(template: string, vars: Record<string, unknown> = {}): { status: string; title?: string; error: string | null } {
  const ev = run({ ...emptyDocument(), title: 'old' }, [{ id: 'r', actions: [{ set_title: template }] }], { vars });
  return { status: ev.results[0].status, title: ev.changes.title, error: ev.results[0].error };
}

// NOW in the helpers is 2025-03-15T12:00:00Z.
const cases: Array<[string, Record<string, unknown>, string]> = [
  ["{{ '2024-03-01' | date: '%d.%m.%Y' }}", {}, '01.03.2024'],
  ["{{ '3. März 2024' | date: '%Y-%m-%d' }}", {}, '2024-03-03'],
  ["{{ 'March 3, 2024' | date }}", {}, '2024-03-03'],
  ["{{ now | date: '%Y-%m-%d %H:%M' }}", {}, '2025-03-15 12:00'],
  ["{{ 'today' | date: '%B %Y' }}", {}, 'March 2025'],
  ["{{ '-1m' | date }}", {}, '2025-02-15'],
  ["{{ 'now' | date_to_string }}", {}, '15 Mar 2025'],
  ['{{ vars.n | money }}', { n: 1234.5 }, '1234.50'],
  ["{{ vars.n | money: 'de' }}", { n: 1234.5 }, '1.234,50'],
  ["{{ vars.n | money: 'en', 'USD' }}", { n: 1234.5 }, '$1,234.50'],
  ["{{ '84,37 €' | money: 'de' }}", {}, '84,37 €'],
  ["{{ '1.234,56' | parse_number | plus: 1 }}", {}, '1235.56'],
  ["{{ '03/04/2024' | parse_date: 'MM/dd/yyyy' }}", {}, '2024-03-04'],
  ["{{ '2024-01-31' | shift_date: '+1m' }}", {}, '2024-02-29'],
  ["{{ 'Rechnung Ärger' | slugify }}", {}, 'rechnung-ärger'],
  ["{{ vars.missing | default: 'fallback' }}", {}, 'fallback'],
  ["{% if vars.missing %}yes{% else %}no{% endif %}", {}, 'no'],
];
for (const [template, vars, expected] of cases) {
  test(`template ${template} renders ${JSON.stringify(expected)}`, () => {
    const out = render(template, vars);
    assert.equal(out.status, 'matched', out.error ?? '');
    assert.equal(out.title, expected);
  });
}

const failures: Array<[string, RegExp]> = [
  ["{{ 'soon' | date: '%Y' }}", /"soon" is not a date/],
  ["{{ 'abc' | parse_number }}", /"abc" is not a number/],
  ["{{ 'x' | money }}", /"x" is not an amount/],
  ['{{ vars.missing }}', /undefined variable "vars.missing"/],
  ['{{ doc.constructor }}', /undefined variable "doc.constructor"/],
];
for (const [template, message] of failures) {
  test(`template ${template} is a rule error, not an empty text`, () => {
    const out = render(template);
    assert.equal(out.status, 'error');
    assert.match(out.error ?? '', message);
  });
}

test('TEMPLATE_FILTERS lists built-in and own filters, without the random sample', () => {
  for (const name of [...CUSTOM_TEMPLATE_FILTERS, 'upcase', 'default', 'slugify', 'date_to_string']) assert.ok(TEMPLATE_FILTERS.includes(name), name);
  assert.ok(!TEMPLATE_FILTERS.includes('sample'));
});
