import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createVocabularyIndex } from '../../../../server/dms/vocabulary-index.js';
import type { DmsDocument } from '../../../../server/dms/types.js';
import { fixtureVocabulary, readFixture } from '../../../helpers/paperless-fixtures.js';
import { unknownRefs } from '../../../../server/runs/documents/rule-document.js';

const doc = (): DmsDocument => ({
  ...(readFixture('document-1.json') as DmsDocument),
  tags: [3, 77],
  owner: 41,
  permissions: { view: { users: [42], groups: [9] }, change: { users: [], groups: [] } },
});

describe('the ids a document uses that the vocabulary does not know', () => {
  it('names stale ids, but not users and groups while they are not listed, nor kinds the token may not view', () => {
    const unlisted = createVocabularyIndex({ ...fixtureVocabulary(), users: undefined, groups: undefined });
    assert.deepEqual(unknownRefs(doc(), unlisted), ['tags:77']);
    const listed = createVocabularyIndex({ ...fixtureVocabulary(), users: [], groups: [] });
    assert.deepEqual(unknownRefs(doc(), listed), ['tags:77', 'users:41', 'users:42', 'groups:9']);
    const forbidden = createVocabularyIndex({
      ...fixtureVocabulary(),
      users: [],
      groups: [],
      forbidden: [{ kind: 'tags', permission: 'view_tag' }],
    });
    assert.deepEqual(unknownRefs(doc(), forbidden), ['users:41', 'users:42', 'groups:9']);
    // Each index keeps its own answer, asked again in any order.
    assert.deepEqual(unknownRefs(doc(), unlisted), ['tags:77']);
    assert.deepEqual(unknownRefs(doc(), listed), ['tags:77', 'users:41', 'users:42', 'groups:9']);
  });
});
