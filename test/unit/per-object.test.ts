import assert from 'node:assert/strict';
import { test } from 'node:test';
import { perObject } from '../../server/per-object.js';

test('computes once per object, by identity, and keeps a falsy result too', () => {
  const calls: object[] = [];
  const lengthOf = perObject((list: readonly number[]) => (calls.push(list), list.length));
  const a = [1, 2, 3];
  const empty: number[] = [];
  assert.equal(lengthOf(a), 3);
  assert.equal(lengthOf(a), 3);
  assert.equal(lengthOf([1, 2, 3]), 3, 'an equal but other array is its own key');
  assert.equal(lengthOf(empty), 0);
  assert.equal(lengthOf(empty), 0);
  assert.deepEqual(calls, [a, [1, 2, 3], empty]);
});
