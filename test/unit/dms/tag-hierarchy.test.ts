import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  createTagTree,
  tagsAfterModify,
  tagsAfterPatch,
  withAncestors,
  withDescendants,
} from '../../../server/dms/tag-hierarchy.js';

// 1 Finanzen ─ 2 Steuer ─ 3 Steuer 2025;  1 ─ 4 Versicherung;  9 alone
const tree = createTagTree([
  { id: 1, parent: null },
  { id: 2, parent: 1 },
  { id: 3, parent: 2 },
  { id: 4, parent: 1 },
  { id: 9 },
]);
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

test('ancestors and descendants follow the parent links at any depth', () => {
  assert.deepEqual(tree.ancestors(3), [2, 1]);
  assert.deepEqual(sorted(tree.descendants(1)), [2, 3, 4]);
  assert.deepEqual(sorted(withAncestors(tree, [3, 9])), [1, 2, 3, 9]);
  assert.deepEqual(sorted(withDescendants(tree, [2])), [2, 3]);
});

test('a parent cycle in bad data ends instead of looping', () => {
  const cyclic = createTagTree([
    { id: 1, parent: 2 },
    { id: 2, parent: 1 },
  ]);
  assert.deepEqual(cyclic.ancestors(1), [2]);
  assert.deepEqual(cyclic.descendants(1), [2]);
});

test('PATCH adds the ancestors of every requested tag', () => {
  assert.deepEqual(sorted(tagsAfterPatch(tree, [9], [9, 3])), [1, 2, 3, 9]);
});

test('PATCH removes the descendants of a removed tag, so [child] on parent + child removes both (DocumentSerializer.update)', () => {
  assert.deepEqual(tagsAfterPatch(tree, [1, 2, 3], [3]), []);
  assert.deepEqual(sorted(tagsAfterPatch(tree, [1, 2, 3, 9], [1, 9])), [1, 9]);
});

test('PATCH drops a removed tag even when a requested tag would bring it as an ancestor (serialisers.py:1106 at v2.19.0)', () => {
  // [child] on a document holding only the parent: the parent is removed, and its child with it.
  assert.deepEqual(tagsAfterPatch(tree, [1], [4]), []);
  // A grandparent the document did not hold is not removed by this write, so it stays.
  assert.deepEqual(tagsAfterPatch(tree, [2], [3]), [1]);
  assert.deepEqual(tagsAfterPatch(tree, [1, 2], [4]), []);
  assert.deepEqual(sorted(tagsAfterPatch(tree, [1], [1, 4])), [1, 4]);
});

test('bulk modify_tags removes with descendants, adds with ancestors and leaves everything else alone', () => {
  assert.deepEqual(sorted(tagsAfterModify(tree, [9], [3], [])), [1, 2, 3, 9]);
  assert.deepEqual(sorted(tagsAfterModify(tree, [1, 2, 3, 4, 9], [], [2])), [1, 4, 9]);
});
