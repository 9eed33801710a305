import '../../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  attachContents,
  copyContent,
  pendingContent,
  splitContents,
  type SplitPage,
} from '../../../server/dms/lazy-content.js';
import { createPaperlessClient } from '../../../server/dms/paperless-client.js';
import { startSimulator } from '../../../tools/paperless-sim/simulator.js';

const TRICKY = [
  'Rechnung Straße 🧾 „Zitat“ – 12,50 €',
  'a "quoted" word, a backslash \\ and one before a quote \\"',
  'ends in a backslash \\',
  'the key "content":"inside" the text, and {"content":"x"}',
  'line\nbreak\ttab\u2028sep\u0000nul',
  '',
  'x'.repeat(40_000),
];

function pageOf(contents: string[], extra: (i: number) => Record<string, unknown> = () => ({})): Buffer {
  const results = contents.map((content, i) => ({
    id: i + 1,
    title: `doc ${i}`,
    content,
    tags: [1, 2],
    notes: [{ id: i, note: 'a "note"' }],
    ...extra(i),
  }));
  return Buffer.from(JSON.stringify({ count: results.length, next: null, previous: null, results }), 'utf8');
}

function parseSplit(body: Buffer): { json: { results: Array<Record<string, unknown>> }; split: SplitPage } {
  const split = splitContents(body);
  assert.ok(split, 'the body has contents to cut out');
  const json = JSON.parse(split.text) as { results: Array<Record<string, unknown>> };
  assert.equal(attachContents(json, split), true);
  return { json, split };
}

test('a page parsed without its contents equals the whole page parsed, key order included, decoding only when read', () => {
  const body = pageOf(TRICKY);
  const { json, split } = parseSplit(body);
  assert.equal(split.literals.length, TRICKY.length);
  assert.ok(
    json.results.every((doc) => pendingContent(doc) !== null),
    'nothing decoded before a read',
  );
  assert.equal(json.results[0].content, TRICKY[0]);
  assert.equal(pendingContent(json.results[0]), null, 'read once, kept');
  assert.deepEqual(json, JSON.parse(body.toString('utf8')));
  assert.equal(JSON.stringify(json), body.toString('utf8'));
});

test('a body the cut cannot be trusted with is parsed whole by the caller', () => {
  // A nested object with a content key, a document whose content is not a string, pretty-printed JSON.
  const nested = pageOf(['one', 'two'], (i) => (i === 1 ? { notes: [{ id: 1, content: 'nested' }] } : {}));
  const split = splitContents(nested);
  assert.ok(split);
  assert.equal(attachContents(JSON.parse(split.text), split), false);
  const nullContent = Buffer.from(
    JSON.stringify({
      count: 2,
      results: [
        { id: 1, content: 'a' },
        { id: 2, content: null },
      ],
    }),
  );
  const withNull = splitContents(nullContent);
  assert.ok(withNull);
  assert.equal(attachContents(JSON.parse(withNull.text), withNull), false);
  assert.equal(splitContents(Buffer.from(JSON.stringify({ results: [{ id: 1, content: 'a' }] }, null, 2))), null);
  assert.equal(splitContents(Buffer.from('{"results":[{"id":1,"content":"never closed')), null);
});

test('setting a lazy content replaces it; copying one keeps it undecoded', () => {
  const { json } = parseSplit(pageOf(['first', 'second']));
  const [a, b] = json.results as Array<{ content: string }>;
  const copy = { content: '' };
  copyContent(b, copy);
  assert.ok(pendingContent(copy), 'still the literal');
  assert.equal(copy.content, 'second');
  assert.equal(pendingContent(b), null, 'decoded once for both');
  a.content = 'replaced';
  assert.equal(a.content, 'replaced');
  assert.equal(pendingContent(a), null);
  assert.deepEqual(Object.keys(a), ['id', 'title', 'content', 'tags', 'notes']);
});

test('documents streamed from the dms carry their text undecoded until read, and it is the stored text', async () => {
  const sim = await startSimulator({ seedDocuments: false, generate: { count: 120, seed: 5, realistic: true } });
  const added = sim.addDocument({ title: 'tricky', content: TRICKY.join('|') });
  const dms = createPaperlessClient({ url: sim.url, token: sim.token });
  try {
    let seen = 0;
    for await (const page of dms.pages({ pageSize: 50 })) {
      for (const doc of page.documents) {
        assert.ok(pendingContent(doc), `document ${doc.id} was decoded before anything read it`);
        assert.equal(doc.content, sim.store.documents.get(doc.id)?.content);
        seen++;
      }
    }
    assert.equal(seen, 121);
    assert.equal(sim.store.documents.get(added.id)?.content, TRICKY.join('|'));
  } finally {
    await dms.close();
    await sim.close();
  }
});
