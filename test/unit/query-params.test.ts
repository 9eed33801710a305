import assert from 'node:assert/strict';
import { test } from 'node:test';
import { booleanParam, oneOfParam, positiveIntegerParam, singleParam } from '../../server/query-params.js';

const badRequest = (pattern: RegExp) => (err: Error & { status?: number }) =>
  err.status === 400 && pattern.test(err.message);

test('a repeated parameter is a 400 naming it', () => {
  assert.throws(() => singleParam(['1', '2'], 'document'), badRequest(/"document" once/));
});

test('positive whole numbers only', () => {
  assert.equal(positiveIntegerParam('42', 'limit'), 42);
  assert.equal(positiveIntegerParam(undefined, 'limit'), undefined);
  for (const bad of ['0', '-1', '1.5', '1e3', 'abc', '', '9999999999999999']) {
    assert.throws(() => positiveIntegerParam(bad, 'limit'), badRequest(/"limit" must be a positive whole number/), bad);
  }
});

test('booleans accept true/false/1/0 in any case and nothing else', () => {
  assert.equal(booleanParam('TRUE', 'dry_run', false), true);
  assert.equal(booleanParam('0', 'dry_run', true), false);
  assert.equal(booleanParam(undefined, 'dry_run', true), true);
  assert.throws(() => booleanParam('yes', 'dry_run', true), badRequest(/"dry_run" must be true, false, 1 or 0/));
});

test('enumerations list what is allowed', () => {
  assert.equal(oneOfParam('done', ['done', 'failed'], 'status'), 'done');
  assert.throws(() => oneOfParam('DONE', ['done', 'failed'], 'status'), badRequest(/one of done, failed/));
});
