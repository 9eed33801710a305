import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ArchiveTextCache } from '../../../server/suggest/archive-cache.js';

const TEXT = 'Stadtwerke Nordhafen Stromrechnung Zählerstand Abschlag '.repeat(20);

describe('the archive text cache', () => {
  it('serves a text only while its document has the modified it was read with', () => {
    const cache = new ArchiveTextCache();
    cache.begin('http://dms');
    cache.put(1, '2026-01-01T00:00:00Z', TEXT, cache.dictionary.read(TEXT));
    assert.equal(cache.get(1, '2026-01-01T00:00:00Z')?.content, TEXT);
    assert.equal(cache.get(1, '2026-02-01T00:00:00Z'), undefined);
    assert.deepEqual([cache.figures().hits, cache.figures().misses], [1, 1]);
  });

  it('keeps no more than its budget and drops what the dms no longer lists', () => {
    const cache = new ArchiveTextCache(20_000);
    cache.begin('http://dms');
    for (let id = 1; id <= 100; id++) cache.put(id, 'm', TEXT, cache.dictionary.read(TEXT));
    const { entries, bytes } = cache.figures();
    assert.ok(entries > 0 && entries < 100, `${entries} of 100 kept`);
    assert.ok(bytes <= 20_000, `${bytes} bytes`);
    cache.retain(new Set([1]));
    assert.equal(cache.size, 1);
  });

  it('starts afresh for another dms', () => {
    const cache = new ArchiveTextCache();
    cache.begin('http://dms');
    cache.put(1, 'm', TEXT, cache.dictionary.read(TEXT));
    cache.begin('http://other-dms');
    assert.equal(cache.size, 0);
    assert.equal(cache.dictionary.words.length, 0);
  });
});
