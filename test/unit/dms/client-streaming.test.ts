import '../../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPaperlessClient } from '../../../server/dms/paperless-client.js';
import { startSimulator, type Simulator } from '../../../tools/paperless-sim/simulator.js';
import type { DmsClient } from '../../../server/dms/types.js';

let sim: Simulator;
let dms: DmsClient;
describe('streaming documents from the dms', () => {
  before(async () => {
    sim = await startSimulator({ seedDocuments: false, generate: { count: 10_000, seed: 42 } });
    dms = createPaperlessClient({ url: sim.url, token: sim.token });
  });
  // Without filters on API version 10 there is no id snapshot: a one-row probe (count and newest id), then plain pages.
  const ID_PAGES = 1;

  after(async () => {
    await dms.close();
    await sim.close();
  });

  test('streams 10,000 documents one page at a time, fetching the next page only when asked', async () => {
    sim.resetCounts();
    let pages = 0;
    let seen = 0;
    let lastId = 0;
    let sum = 0;
    for await (const page of dms.pages({ pageSize: 250, truncateContent: true })) {
      pages++;
      // The probe, then exactly the pages handed out so far: nothing is prefetched or buffered.
      assert.equal(sim.counts()['GET /api/documents/'], ID_PAGES + pages);
      assert.equal(page.count, 10_000);
      assert.ok(page.documents.length <= 250);
      for (const doc of page.documents) {
        assert.ok(doc.id > lastId, 'ids ascend across pages (ordering=id)');
        assert.ok(doc.content.length <= 550, 'truncate_content applied');
        lastId = doc.id;
        sum += doc.id;
      }
      seen += page.documents.length;
    }
    assert.equal(pages, 40);
    assert.equal(seen, 10_000);
    const firstId = [...sim.store.documents.keys()][0];
    assert.equal(sum, (10_000 * (2 * firstId + 9_999)) / 2, 'every document exactly once');
  });

  test('a consumer that stops early stops the requests', async () => {
    sim.resetCounts();
    let pages = 0;
    for await (const page of dms.pages({ pageSize: 100, fields: ['id'] })) {
      assert.equal(page.documents.length, 100);
      if (++pages === 3) break;
    }
    assert.equal(sim.counts()['GET /api/documents/'], ID_PAGES + 3);
  });

  test('pages requested ahead overlap the consumer and are handed out in order, each once', async () => {
    sim.resetCounts();
    let pages = 0;
    let lastId = 0;
    let seen = 0;
    for await (const page of dms.pages({ pageSize: 500, fields: ['id'], ahead: 2 })) {
      pages++;
      // Up to two chunks beyond this one may already be asked for, never more.
      const asked = sim.counts()['GET /api/documents/'];
      assert.ok(asked >= ID_PAGES + pages && asked <= ID_PAGES + pages + 2, `${asked} requests after ${pages} pages`);
      for (const doc of page.documents) {
        assert.ok(doc.id > lastId, 'ids ascend across pages');
        lastId = doc.id;
      }
      seen += page.documents.length;
    }
    assert.equal(pages, 20);
    assert.equal(seen, 10_000);
    assert.equal(sim.counts()['GET /api/documents/'], ID_PAGES + 20);
  });

  test('documents that stop matching while the stream runs are still all seen, once', async () => {
    const filters = { tags__id__all: '1' };
    let expected = 0;
    for await (const page of dms.pages({ filters, fields: ['id'], pageSize: 10_000 })) expected = page.count;
    assert.ok(expected > 1000);
    const seen = new Set<number>();
    for await (const page of dms.pages({ filters, fields: ['id', 'tags'], pageSize: 100 })) {
      for (const doc of page.documents) seen.add(doc.id);
      // What a run-all job does: remove the very tag it filtered on, for the whole page at once.
      await dms.bulkEdit(
        page.documents.map((d) => d.id),
        'remove_tag',
        { tag: 1 },
      );
    }
    assert.equal(seen.size, expected);
    let left = -1;
    for await (const page of dms.pages({ filters, fields: ['id'] })) left = page.count;
    assert.equal(left, 0, 'an empty result still yields one page with count 0');
  });

  test('a prefilter narrows the stream on the dms side', async () => {
    let total = 0;
    let matched = 0;
    for await (const page of dms.pages({
      filters: { content__icontains: 'rechnungsbetrag', document_type__isnull: 'false' },
      fields: ['id', 'content', 'document_type'],
      pageSize: 500,
    })) {
      total = page.count;
      for (const doc of page.documents) {
        assert.match(doc.content, /Rechnungsbetrag/i);
        assert.notEqual(doc.document_type, null);
        matched++;
      }
    }
    assert.equal(matched, total);
    assert.ok(total > 100 && total < 10_000, `a realistic share of invoices matched (${total})`);
  });

  test('without a snapshot, documents deleted while the stream runs shift no other document out of it', async () => {
    const own = await startSimulator({ seedDocuments: false, generate: { count: 1000, seed: 3 } });
    const client = createPaperlessClient({ url: own.url, token: own.token });
    try {
      const all = [...own.store.documents.keys()];
      const seen: number[] = [];
      let pages = 0;
      own.resetCounts();
      for await (const page of client.pages({ pageSize: 100, fields: ['id'] })) {
        seen.push(...page.documents.map((d) => d.id));
        // After the first page, ten of its documents go: every later page starts ten documents further on.
        if (++pages === 1) for (const doc of page.documents.slice(0, 10)) own.store.documents.delete(doc.id);
      }
      assert.equal(seen.length, new Set(seen).size, 'each document once');
      assert.deepEqual(
        [...seen].sort((a, b) => a - b),
        all,
        'every document, the deleted ones read before they went',
      );
      // The probe, ten pages, and one `id__in` recheck of the ids between pages that no page delivered.
      assert.equal(own.counts()['GET /api/documents/'], 1 + 10 + 1);
    } finally {
      await client.close();
      await own.close();
    }
  });
});
