import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileRule, runRuleTests, type RuleDefinition } from '../../../server/engine/engine.js';
import { NOW } from './helpers.js';

const recent = (document: Record<string, unknown>): RuleDefinition => ({
  id: 'recent',
  when: { added: { gte: '-30d' } },
  actions: [{ add_tags: ['new'] }],
  tests: [{ name: 'added today', document, expect: { matched: true } }],
});

test('a template in a test document is an error at its field, not a silent non-match', () => {
  const [outcome] = runRuleTests(compileRule(recent({ added: '{{ now }}' })), { now: NOW });
  assert.equal(outcome.ok, false);
  assert.match(
    outcome.message,
    /^added today: document\.added is "\{\{ now \}\}", but templates are not rendered in test documents/,
  );
  assert.deepEqual(outcome.path, ['tests', 0, 'document', 'added']);
});

test('a date field of a test document must be a date', () => {
  const [outcome] = runRuleTests(compileRule(recent({ added: 'yesterday' })), { now: NOW });
  assert.match(outcome.message, /document\.added must be a date such as 2025-03-01/);
  const nested = runRuleTests(compileRule(recent({ custom_fields: { Due: '{% if x %}1{% endif %}' } })), {
    now: NOW,
  })[0];
  assert.deepEqual(nested.path, ['tests', 0, 'document', 'custom_fields', 'Due']);
});

test('plain values and ISO dates run as before', () => {
  const [outcome] = runRuleTests(compileRule(recent({ added: NOW.toISOString() })), { now: NOW });
  assert.equal(outcome.ok, true, outcome.message);
});
