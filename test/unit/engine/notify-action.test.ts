import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileRule, emptyDocument, RuleCompileError } from '../../../server/engine/index.js';
import { run } from './helpers.js';

test('notify renders its templates into a planned message and changes nothing in the document', () => {
  const doc = { ...emptyDocument(), id: 7, title: 'Strom' };
  const evaluation = run(doc, [
    { id: 'n', actions: [{ notify: { to: 'phone', title: 'New {{ doc.title }}', message: 'Document {{ doc.id }}' } }] },
  ]);
  assert.deepEqual(evaluation.notifications, {
    n: [{ path: 'actions/0', target: 'phone', title: 'New Strom', message: 'Document 7' }],
  });
  assert.deepEqual(evaluation.changes, {});
  assert.equal(evaluation.results[0].actions[0].status, 'planned');
  assert.equal(evaluation.results[0].actions[0].detail, 'to phone: "New Strom" "Document 7"');
});

test('a rule that does not match plans no message', () => {
  const evaluation = run({ ...emptyDocument(), id: 1 }, [
    { id: 'n', when: { title: 'x' }, actions: [{ notify: { to: 'phone', message: 'm' } }] },
  ]);
  assert.deepEqual(evaluation.notifications, {});
});

test('notify needs a target name and a message template', () => {
  assert.throws(() => compileRule({ id: 'n', actions: [{ notify: { to: '', message: 'm' } }] }), RuleCompileError);
  assert.throws(
    () => compileRule({ id: 'n', actions: [{ notify: { to: 'phone', message: '{{ unclosed' } }] }),
    (err: unknown) => err instanceof RuleCompileError && err.path.join('/') === 'actions/0/notify/message',
  );
});
