import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileRule, emptyDocument, RuleCompileError, runRuleTests } from '../../../server/engine/engine.js';
import { run } from './helpers.js';

test('notify renders its templates into a planned message and changes nothing in the document', () => {
  const doc = { ...emptyDocument(), id: 7, title: 'Strom' };
  const evaluation = run(doc, [
    { id: 'n', actions: [{ notify: { to: 'phone', title: 'New {{ doc.title }}', message: 'Document {{ doc.id }}' } }] },
  ]);
  assert.deepEqual(evaluation.notifications, {
    n: [{ path: 'actions/0', target: 'phone', when: 'on_change', title: 'New Strom', message: 'Document 7' }],
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

test('when, attach, body and headers render into the planned message and its trace detail', () => {
  const doc = { ...emptyDocument(), id: 7, title: 'Strom "neu"' };
  const evaluation = run(doc, [
    {
      id: 'n',
      actions: [
        { notify: { to: 'mail', message: 'm', when: 'once', attach: 'archive' } },
        {
          notify: {
            to: 'hook',
            when: 'always',
            body: '{"t": {{ doc.title | json }}}',
            headers: { 'X-Doc': '{{ doc.id }}' },
          },
        },
      ],
    },
  ]);
  assert.deepEqual(evaluation.notifications.n, [
    { path: 'actions/0', target: 'mail', when: 'once', title: '', message: 'm', attach: 'archive' },
    {
      path: 'actions/1',
      target: 'hook',
      when: 'always',
      title: '',
      message: '',
      body: '{"t": "Strom \\"neu\\""}',
      headers: { 'X-Doc': '7' },
    },
  ]);
  assert.equal(evaluation.results[0].actions[0].detail, 'to mail: "m" with the archive file attached (when: once)');
  assert.equal(
    evaluation.results[0].actions[1].detail,
    'to hook: body "{\\"t\\": \\"Strom \\\\\\"neu\\\\\\"\\"}" headers X-Doc (when: always)',
  );
});

test('a notify is refused at compile time with the key and a message a person can act on', () => {
  const cases: Array<[Record<string, unknown>, string, RegExp]> = [
    [{ to: 'p', message: 'm', when: 'sometimes' }, 'when', /when is on_change .*, always .* or once/],
    [{ to: 'p', message: 'm', attach: 'pdf' }, 'attach', /attach is original .* or archive/],
    [{ to: 'p' }, '', /notify needs a message \(or, for an HTTP target, a body\)/],
    [{ to: 'p', message: 'm', attach: 'archive', body: 'b' }, 'attach', /one notify cannot have both/],
    [{ to: 'p', message: 'm', url: 'http://x' }, 'url', /unknown notify key "url"/],
    [{ to: 'p', message: 'm', headers: { Host: 'x' } }, 'headers/Host', /a rule may not set Host/],
    [{ to: 'p', message: 'm', headers: { 'content-length': '1' } }, 'headers/content-length', /may not set/],
    [{ to: 'p', message: 'm', headers: { 'Idempotency-Key': 'k' } }, 'headers/Idempotency-Key', /may not set/],
    [{ to: 'p', message: 'm', headers: { Cookie: 'c' } }, 'headers/Cookie', /credentials belong in the target/],
    [{ to: 'p', message: 'm', headers: { 'a b': 'c' } }, 'headers/a b', /not a valid HTTP header name/],
    [{ to: 'p', message: 'm', headers: { 'X-A': 'a', 'x-a': 'b' } }, 'headers/x-a', /given twice/],
    [{ to: 'p', message: 'm', headers: ['X-A'] }, 'headers', /headers is a mapping/],
  ];
  for (const [notify, at, message] of cases) {
    assert.throws(
      () => compileRule({ id: 'n', actions: [{ notify }] } as never),
      (err: unknown) =>
        err instanceof RuleCompileError &&
        err.path.join('/') === ['actions/0/notify', at].filter(Boolean).join('/') &&
        message.test(err.message),
      JSON.stringify(notify),
    );
  }
});

test('a header value that renders a line break is a rule error, not a second header', () => {
  const doc = { ...emptyDocument(), id: 7, content: 'a\nX-Evil: 1' };
  const evaluation = run(doc, [
    { id: 'n', actions: [{ notify: { to: 'hook', message: 'm', headers: { 'X-C': '{{ doc.content }}' } } }] },
  ]);
  assert.equal(evaluation.results[0].status, 'error');
  assert.match(evaluation.results[0].error ?? '', /notify header X-C: the value has a line break/);
  assert.deepEqual(evaluation.notifications, {});
});

test('rule tests expect the targets a real run would send to, decided as the run layer decides', () => {
  const outcomes = (notify: Record<string, unknown>, tests: unknown[]) =>
    runRuleTests(compileRule({ id: 'n', actions: [{ notify }], tests } as never), { now: new Date(0) }).map(
      (o) => o.message,
    );
  const onlyNotify = { to: 'phone', message: 'm' };
  assert.deepEqual(
    outcomes(onlyNotify, [
      { document: {}, expect: { matched: true, notify: [] } },
      { document: {}, trigger: 'added', expect: { matched: true, notify: ['phone'] } },
      { document: {}, expect: { matched: true, notify: ['phone'] } },
    ]),
    [
      'test 1: passed',
      'test 2: passed',
      'test 3: notify: expected [phone], a real run would send to []; phone is not sent: the rule has no change to write (when: on_change, trigger job)',
    ],
  );
  assert.deepEqual(
    outcomes({ ...onlyNotify, when: 'always' }, [{ document: {}, expect: { matched: true, notify: ['phone'] } }]),
    ['test 1: passed'],
  );
});
