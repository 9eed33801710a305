import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compileRule,
  emptyDocument,
  runRuleTests,
  RULE_FILE_SCHEMA,
  RuleCompileError,
  type RuleDefinition,
  type RuleDocument,
} from '../../../server/engine/engine.js';
import { Ajv } from 'ajv';
import { run, NOW } from './helpers.js';

const invoice = (net: string, gross: string): RuleDocument => ({
  ...emptyDocument(),
  id: 3,
  title: 'Rechnung',
  content: `Netto ${net} EUR\nBrutto ${gross} EUR`,
  created: '2025-02-01',
});

const vatCheck: RuleDefinition = {
  id: 'vat',
  extract: {
    net: { regex: 'Netto ([\\d.,]+)', type: 'number' },
    gross: { regex: 'Brutto ([\\d.,]+)', type: 'number' },
  },
  actions: [
    { add_tags: 'geprüft' },
    {
      add_tags: 'MwSt falsch',
      if: { check: '{% assign expected = net | times: 1.19 | round: 2 %}{% if gross != expected %}yes{% endif %}' },
    },
  ],
};

test('an action with if: runs only when its condition holds, and a skipped one says what the condition saw', () => {
  const right = run(invoice('100,00', '119,00'), [vatCheck]).results[0];
  assert.equal(right.status, 'matched', right.error ?? '');
  assert.equal(right.actions[1].status, 'skipped');
  assert.match(right.actions[1].detail ?? '', /^skipped: condition false \(check ".*" rendered "" → false\)$/);
  assert.deepEqual(right.changes.tags, { from: [], to: ['geprüft'] });
  const wrong = run(invoice('100,00', '120,00'), [vatCheck]).results[0];
  assert.equal(wrong.actions[1].status, 'planned');
  assert.deepEqual(wrong.changes.tags, { from: [], to: ['geprüft', 'MwSt falsch'] });
  assert.ok(wrong.conditions.some((c) => c.path === 'actions/1/if' && c.result));
});

test('if: takes field tests and combinators as when: does, and sees what earlier actions changed', () => {
  const def: RuleDefinition = {
    id: 'created',
    extract: { born: { regex: 'geboren (\\S+)', type: 'date' }, issued: { regex: 'Datum (\\S+)', type: 'date' } },
    actions: [
      { set_title: 'Bescheid' },
      {
        set_created: '{{ issued }}',
        if: { all: [{ title: 'Bescheid' }, { check: 'issued != born' }] },
      },
    ],
  };
  const doc = (text: string) => ({ ...emptyDocument(), title: 'x', content: text });
  const set = run(doc('geboren 01.02.1990 Datum 03.04.2025'), [def]).results[0];
  assert.equal(set.actions[1].status, 'planned', set.actions[1].detail);
  const skipped = run(doc('geboren 01.02.1990 Datum 01.02.1990'), [def]).results[0];
  assert.equal(skipped.actions[1].status, 'skipped');
  assert.match(
    skipped.actions[1].detail ?? '',
    /title equals "Bescheid" → true .*; check "issued != born" → false \(issued = "1990-02-01", born = "1990-02-01"\)/,
  );
});

test('an if: that cannot be evaluated makes the rule an error; a wrong one is a compile error at its place', () => {
  const failing = run(invoice('1', '2'), [
    { id: 'r', actions: [{ add_tags: 'x', if: { check: "{{ '2025-01-01' | add_days: 'x' }}" } }] },
  ]).results[0];
  assert.equal(failing.status, 'error');
  assert.equal(failing.actions[0].status, 'failed');
  assert.match(failing.error ?? '', /the action's if: .*add_days/);
  assert.throws(
    () => compileRule({ id: 'r', actions: [{ add_tags: 'x', if: { titel: 'x' } }] }),
    (err: unknown) => err instanceof RuleCompileError && err.path.join('/') === 'actions/0/if/titel',
  );
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile(RULE_FILE_SCHEMA);
  assert.equal(validate({ rules: [{ id: 'r', actions: [{ add_tags: 'x', if: { title: 'x' } }] }] }), true);
  assert.equal(validate({ rules: [{ id: 'r', actions: [{ add_tags: 'x', if: 'title' }] }] }), false);
});

const shared: RuleDocument = {
  ...emptyDocument(),
  id: 4,
  title: 'Kontoauszug',
  owner: 'anna',
  permissions: { view: { users: ['ben'], groups: ['Familie'] }, change: { users: [], groups: [] } },
};

test('owner and permissions are condition fields: who may view or change the document', () => {
  const holds = (when: RuleDefinition['when']) => run(shared, [{ id: 'r', when }]).results[0].status === 'matched';
  assert.equal(holds({ owner: 'Anna' }), true);
  assert.equal(holds({ 'permissions.view.groups': { contains: 'Familie' } }), true);
  assert.equal(holds({ 'permissions.view.groups': { none: ['Steuerberater'] } }), true);
  assert.equal(holds({ 'permissions.view.users': { any: ['ben', 'carl'] } }), true);
  assert.equal(holds({ 'permissions.change.users': { empty: true } }), true);
  assert.equal(holds({ not: { 'permissions.view.groups': 'Familie' } }), false);
  const trace = run(shared, [{ id: 'r', when: { 'permissions.view.users': { contains: 'ben' } } }]).results[0];
  assert.deepEqual(trace.conditions[0].actual, ['ben']);
  assert.throws(() => compileRule({ id: 'r', when: { title: { any: ['x'] } } }), /works only on tags and permissions/);
});

test('owner and permissions are readable in checks and templates', () => {
  const result = run(shared, [
    {
      id: 'r',
      when: { check: "doc.permissions.view.groups contains 'Familie' and doc.owner == 'anna'" },
      actions: [{ add_note: 'Owner {{ doc.owner }}, shared with {{ doc.permissions.view.users | join: ", " }}' }],
    },
  ]).results[0];
  assert.equal(result.status, 'matched', result.error ?? '');
  assert.match(result.actions[0].detail ?? '', /"Owner anna, shared with ben"/);
  assert.throws(
    () => compileRule({ id: 'r', actions: [{ add_note: '{{ doc.permissions.view.user }}' }] }),
    /doc\.permissions\.view\.user.*did you mean "doc\.permissions\.view\.users"/,
  );
});

test("a notify target may come from the document: the owner's own target from the settings", () => {
  const def: RuleDefinition = {
    id: 'tell-owner',
    when: { 'permissions.view.users': { contains: 'ben' } },
    actions: [
      {
        notify: {
          to: "{{ doc.owner | default: 'office' }}",
          message: '{{ doc.title }} is shared with ben',
          when: 'always',
        },
      },
    ],
    tests: [
      {
        document: { owner: 'anna', permissions: { view: { users: ['ben'] } } },
        expect: { matched: true, notify: ['anna'] },
      },
      {
        name: 'no owner',
        document: { permissions: { view: { users: ['ben'] } } },
        expect: { matched: true, notify: ['office'] },
      },
    ],
  };
  const outcomes = runRuleTests(compileRule(def), { now: NOW });
  assert.deepEqual(
    outcomes.map((o) => o.message),
    ['test 1: passed', 'no owner: passed'],
  );
});
