import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DraftStore } from '../../../renderer/src/editor/draft-sync.js';
import { localCopy, type TextStorage } from '../../../renderer/src/editor/local-copy.js';
import { harness } from './draft-sync-harness.js';

function mapStorage(): TextStorage & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, v),
    removeItem: (k) => void map.delete(k),
  };
}

/** Opens the file `f1` (published `rules: []`) with `storage` as the browser's storage. */
const open = (storage: TextStorage, store: Partial<DraftStore> = {}) =>
  harness(store, undefined, localCopy('f1', storage));

describe('the editor text kept in the browser', () => {
  it('keeps every edit until the service stored it, then forgets it', async () => {
    const storage = mapStorage();
    const first = open(storage, { saveDraft: async () => Promise.reject(new Error('401')) });
    first.type('rules: [] # mine\n');
    await first.sync.saveDraft();
    assert.equal(storage.map.get('dms-rules.unsaved.f1'), 'rules: [] # mine\n');

    const again = open(storage);
    assert.equal(again.sync.restoredText, 'rules: [] # mine\n');
    again.set('rules: [] # mine\n');
    await again.sync.saveDraft();
    assert.equal(storage.map.size, 0);
  });

  it('keeps the newer text when the answer is for an older one', async () => {
    const storage = mapStorage();
    let release: () => void = () => undefined;
    const session = open(storage, {
      saveDraft: () => new Promise((resolve) => (release = () => resolve({ ok: true }))),
    });
    session.type('one\n');
    const saving = session.sync.saveDraft();
    await new Promise((resolve) => setImmediate(resolve)); // the save of "one" is on its way
    session.type('one\ntwo\n');
    release();
    await saving;
    assert.equal(storage.map.get('dms-rules.unsaved.f1'), 'one\ntwo\n');
  });

  it('forgets the copy when the text is edited back to what the service has', () => {
    const storage = mapStorage();
    const session = open(storage);
    session.type('rules: [] # mine\n');
    assert.equal(storage.map.size, 1);
    session.type('rules: []\n');
    assert.equal(storage.map.size, 0);
  });

  it('forgets a kept copy that equals what the service already has', () => {
    const storage = mapStorage();
    storage.setItem('dms-rules.unsaved.f1', 'rules: []\n');
    assert.equal(open(storage).sync.restoredText, null);
    assert.equal(storage.map.size, 0);
  });
});
