import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileRule, type RuleDefinition } from '../../../server/engine/engine.js';
import { createRuleTestPool } from '../../../server/eval/rule-test-runner.js';
import { createMemoryLogger } from '../../../server/log.js';
import { inlineRuleTests } from '../../../server/rules/rules.js';

const RULE = {
  id: 'invoice',
  when: { title: { contains: 'Invoice' } },
  actions: [{ add_tags: ['Finance'] }],
  tests: [
    { name: 'an invoice', document: { title: 'Invoice 7' }, expect: { matched: true, changes: { tags: ['Finance'] } } },
    { document: { title: 'Letter' }, expect: { matched: true } },
    { document: { title: 'Invoice 8' }, expect: { matched: false } },
  ],
} as unknown as RuleDefinition;

test('the worker gives the same outcomes as the main thread: names, messages and paths', async () => {
  const pool = createRuleTestPool({ budgetMs: 60_000, logger: createMemoryLogger() });
  try {
    const compiled = compileRule(RULE);
    const options = { now: new Date('2026-01-01T00:00:00Z'), vars: {} };
    const inWorker = await pool.run(compiled, options);
    assert.deepEqual(inWorker, await inlineRuleTests(compiled, options));
    assert.deepEqual(
      inWorker.map((o) => [o.name, o.ok, o.path.slice(0, 2)]),
      [
        ['an invoice', true, ['tests', 0]],
        ['test 2', false, ['tests', 1]],
        ['test 3', false, ['tests', 2]],
      ],
    );
    const first = await pool.run(compiled, { ...options, firstFailure: true });
    assert.equal(first.length, 2, 'load and save stop at the first failing test');
  } finally {
    await pool.close();
  }
});
