import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileRule, RuleCompileError, runRuleTests } from '../../../server/engine/engine.js';
import { NOW, run } from './helpers.js';
import { sample } from './fixtures/sample-documents.js';

test('move_to_trash plans the move after the other changes; a second one in the run is unchanged', () => {
  const result = run(sample(1), [
    { id: 'a', actions: [{ add_tags: 'alt' }, { move_to_trash: true }] },
    { id: 'b', actions: [{ move_to_trash: true }] },
  ]);
  assert.equal(result.changes.trash, true);
  assert.deepEqual(result.results[0].changes.trash, { from: false, to: true });
  assert.equal(result.results[0].actions[1].status, 'planned');
  assert.equal(result.results[1].actions[0].status, 'unchanged');
});

test('move_to_trash takes true only; a rule test expects trash: true', () => {
  assert.throws(
    () => compileRule({ id: 'r', actions: [{ move_to_trash: false as unknown as true }] }),
    (e: unknown) => e instanceof RuleCompileError && /takes true/.test(e.message),
  );
  const compiled = compileRule({
    id: 'r',
    when: { title: { starts_with: 'Entwurf' } },
    actions: [{ move_to_trash: true }],
    tests: [
      { document: { title: 'Entwurf 1' }, expect: { matched: true, changes: { trash: true } } },
      { document: { title: 'Rechnung' }, expect: { matched: false } },
    ],
  });
  assert.deepEqual(
    runRuleTests(compiled, { now: NOW }).map((o) => o.message),
    ['test 1: passed', 'test 2: passed'],
  );
});
