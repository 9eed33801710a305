import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyDocument } from '../../../server/engine/engine.js';
import { run } from './helpers.js';

// Patterns that take exponential time in a backtracking engine on a long run of "a"s with no match at the end.
const CATASTROPHIC = ['(a+)+$', '(a|a)*b', '(a|aa)+c', '^(\\w+\\s?)*$'];

for (const pattern of CATASTROPHIC) {
  test(`a 5 MB content with /${pattern}/ finishes and reports the result`, () => {
    const content = `${'a'.repeat(5_000_000)}!`;
    const ev = run({ ...emptyDocument(), content }, [
      { id: 'hostile', when: { content: { matches: pattern } }, extract: { v: { regex: pattern } } },
    ]);
    const result = ev.results[0];
    assert.equal(result.status, 'not_matched');
    assert.match(result.conditions[0].description, /no match in 5,000,001 characters/);
  });
}

test('pick: all keeps a bounded number of values from a pattern that matches everywhere', () => {
  const content = 'x'.repeat(200_000);
  const ev = run({ ...emptyDocument(), content }, [{ id: 'many', extract: { all: { regex: '(x)', pick: 'all' } } }]);
  const values = ev.results[0].extracted.all;
  assert.ok(Array.isArray(values));
  assert.equal(values.length, 1000);
});

test('a template that loops too long is stopped: its own status, not a silent non-match', () => {
  const ev = run(emptyDocument(), [
    {
      id: 'loop',
      actions: [{ set_title: '{% for i in (1..1000000) %}{% for j in (1..1000) %}{% endfor %}{% endfor %}x' }],
    },
    { id: 'next', actions: [{ add_tags: 'ok' }] },
  ]);
  assert.equal(ev.results[0].status, 'timeout');
  assert.match(ev.results[0].error ?? '', /ran more than 100,000 steps and was stopped/);
  assert.equal(ev.results[1].status, 'matched', 'the other rules go on');
});

test('a template that builds too much text is stopped as an error', () => {
  const ev = run(emptyDocument(), [
    {
      id: 'big',
      actions: [
        {
          set_title:
            "{% assign s = 'x' %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s | size }}",
        },
      ],
    },
  ]);
  assert.equal(ev.results[0].status, 'error');
  assert.match(ev.results[0].error ?? '', /memory alloc limit exceeded/);
});

test('templates cannot read files: include, render and layout are refused when the rule is compiled', async () => {
  const { compileRule, renderVars, RuleCompileError } = await import('../../../server/engine/engine.js');
  for (const tag of ["{% include 'data/session-secret' %}", "{% render 'package.json' %}", "{% layout 'x' %}"]) {
    assert.throws(
      () => compileRule({ id: 'leak', actions: [{ set_title: tag }] }),
      (err: Error) => err instanceof RuleCompileError && /cannot read files/.test(err.message),
      tag,
    );
    assert.throws(
      () => renderVars({ leaked: tag }, { now: new Date('2025-01-01T00:00:00Z'), env: {} }),
      /cannot read files/,
      tag,
    );
  }
});
