import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compileRule,
  CUSTOM_TEMPLATE_FILTERS,
  emptyDocument,
  RuleCompileError,
  TEMPLATE_FILTERS,
} from '../../../server/engine/engine.js';
import { run } from './helpers.js';

function render(
  template: string,
  vars: Record<string, unknown> = {},
): { status: string; title?: string; error: string | null } {
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
  ['{% if vars.missing %}yes{% else %}no{% endif %}', {}, 'no'],
  ["{{ 'Rechnung  Nr.\t 12/2024' | regex_replace: '\\s+', ' ' }}", {}, 'Rechnung Nr. 12/2024'],
  ["{{ '12/2024' | regex_replace: '([0-9]+)/(\\\\d{4})', '$2-$1' }}", {}, '2024-12'],
  ["{{ 'ACME gmbh' | regex_replace: '(?i)\\s*gmbh$', '' }}", {}, 'ACME'],
  ["{{ 'STADTWERKE MÜNCHEN gmbh' | title_case }}", {}, 'Stadtwerke München Gmbh'],
  ['{{ "o\'neil-meyer\'s ärger" | title_case }}', {}, "O'neil-Meyer's Ärger"],
  ["{{ '2025-03-03' | localize_date: '%d. %B %Y', 'de' }}", {}, '03. März 2025'],
  ["{{ '2025-03-03' | localize_date: '%A %e %B %Y', 'fr' }}", {}, 'lundi 3 mars 2025'],
  ["{{ '2025-03-03' | localize_date: '%a, %b %d %Y', 'en' }}", {}, 'Mon, Mar 03 2025'],
  ["{{ '2025-03-03' | localize_date: 'long', 'de' }}", {}, '3. März 2025'],
  ["{{ '2025-03-03' | localize_date: 'full', 'fr' }}", {}, 'lundi 3 mars 2025'],
  ["{{ 'today' | localize_date: '%B %Y', 'de_AT' }}", {}, 'März 2025'],
  ["{{ '2025-01-10' | localize_date: '%B', 'de-AT' }}", {}, 'Jänner'],
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
  ["{{ 'x' | regex_replace: '(?=x)', 'y' }}", /regex_replace: .*lookahead/],
  ["{{ 'x' | regex_replace: '(', 'y' }}", /regex_replace: invalid regular expression/],
  ["{{ 'today' | localize_date: '%B', 'klingon-xx-yy' }}", /no language this service knows/],
  ["{{ 'soon' | localize_date: '%B', 'de' }}", /"soon" is not a date/],
  ['{{ vars.constructor }}', /undefined variable "vars.constructor"/],
];
for (const [template, message] of failures) {
  test(`template ${template} is a rule error, not an empty text`, () => {
    const out = render(template);
    assert.equal(out.status, 'error');
    assert.match(out.error ?? '', message);
  });
}

test('TEMPLATE_FILTERS lists built-in and own filters, without the random sample', () => {
  for (const name of [...CUSTOM_TEMPLATE_FILTERS, 'upcase', 'default', 'slugify', 'date_to_string'])
    assert.ok(TEMPLATE_FILTERS.includes(name), name);
  assert.ok(!TEMPLATE_FILTERS.includes('sample'));
});

const impossible: Array<[string, RegExp]> = [
  [
    '{{ totl }}',
    /template names "totl" \(template line 1, column 4\), which does not exist; did you mean "total"\? Available: total, doc, vars, now, today, rule/,
  ],
  ['{{ doc.titel | upcase }}', /"doc.titel" .*did you mean "doc.title"/],
  ['{{ doc.constructor }}', /"doc.constructor" .*which does not exist/],
  [
    '{% for t in doc.tags %}{{ t }}{{ forloop.index }}{% endfor %}{{ rule.name }}',
    /"rule.name" .*rule has id, description, file/,
  ],
];
for (const [template, message] of impossible) {
  test(`template ${template} names a variable that cannot exist: a compile error at its action`, () => {
    assert.throws(
      () => compileRule({ id: 'r', extract: { total: { regex: '(\\d+)' } }, actions: [{ set_title: template }] }),
      (err: unknown) =>
        err instanceof RuleCompileError &&
        message.test(err.message) &&
        JSON.stringify(err.path) === '["actions",0,"set_title"]',
    );
  });
}

test('an extraction value template sees only the values extracted before it; loop and assign names are fine', () => {
  assert.throws(
    () => compileRule({ id: 'r', extract: { a: { value: '{{ b }}' }, b: { regex: '(x)' } } }),
    /template names "b"/,
  );
  assert.doesNotThrow(() =>
    compileRule({
      id: 'r',
      extract: { b: { regex: '(x)' }, a: { value: '{% assign y = b %}{{ y }}{{ vars.anything }}' } },
      actions: [{ set_title: '{% for t in doc.tags %}{{ t }}{% endfor %}{{ doc.custom_fields.Any }}{{ a }}' }],
    }),
  );
});
