import '../../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ID_PAGE_SIZE, ID_PAGES_AHEAD, streamDocuments } from '../../../server/dms/document-stream.js';
import type { DmsRequest, DmsResponse, Transport } from '../../../server/dms/http-transport.js';
import { checkedArray, checkedPage, MAX_LIST_PAGES, ownNextPage, type PageAsk } from '../../../server/dms/list-walk.js';
import { createPaperlessClient } from '../../../server/dms/paperless-client.js';
import type { DmsClient } from '../../../server/dms/types.js';
import { startHostilePaperless, type HostilePaperless, type ListLie } from '../../helpers/hostile-paperless.js';

const ASK: PageAsk = { base: 'https://paperless.example.org', path: '/api/tags/', page: 1, pageSize: 10 };

describe('whose next link is it', () => {
  const cases: Array<[string, string, number | null]> = [
    ['the same list, next page', 'https://paperless.example.org/api/tags/?page=2&page_size=10', 2],
    [
      'http behind a TLS proxy (Paperless builds links from the scheme it sees)',
      'http://paperless.example.org/api/tags/?page=2',
      2,
    ],
    ['a relative link', '/api/tags/?page=2', 2],
    ['another host', 'https://evil.example/api/tags/?page=2', null],
    ['a look-alike host', 'https://paperless.example.org.evil.example/api/tags/?page=2', null],
    ['credentials before the host', 'https://paperless.example.org@evil.example/api/tags/?page=2', null],
    ['another list', 'https://paperless.example.org/api/documents/?page=2', null],
    ['a path that only starts like the list', 'https://paperless.example.org/api/tags/../users/?page=2', null],
    ['no page number', 'https://paperless.example.org/api/tags/?page_size=10', null],
    ['a page that is not a number', 'https://paperless.example.org/api/tags/?page=2e9', null],
    ['not a URL at all', 'http://[::1', null],
  ];
  for (const [name, next, page] of cases) {
    it(`${page === null ? 'refuses' : 'accepts'} ${name}`, () => assert.equal(ownNextPage(next, ASK), page));
  }

  it('accepts the list below a base path, and the same list when a proxy strips the prefix', () => {
    const ask = { ...ASK, base: 'https://host.example/paperless' };
    assert.equal(ownNextPage('https://host.example/paperless/api/tags/?page=2', ask), 2);
    assert.equal(ownNextPage('https://host.example/api/tags/?page=2', ask), 2);
    assert.equal(ownNextPage('https://host.example/other/api/tags/?page=2', ask), null);
  });
});

describe('one page checked against what was asked', () => {
  const page = (body: Record<string, unknown>) => () =>
    checkedPage({ count: 1, next: null, results: [], ...body }, ASK, 1000);

  it('passes an honest page', () => {
    assert.deepEqual(
      checkedPage({ count: 11, next: 'https://paperless.example.org/api/tags/?page=2', results: [1, 2] }, ASK).results,
      [1, 2],
    );
  });
  it('refuses a count beyond the cap, naming it', () =>
    assert.throws(
      page({ count: 5e9 }),
      /the dms said count 5000000000 for page 1 of GET \/api\/tags\/, more than the 1000/,
    ));
  it('refuses a count that is no count', () => {
    assert.throws(page({ count: -1 }), /count -1/);
    assert.throws(page({ count: 1.5 }), /count 1.5/);
    assert.throws(page({ count: '7' }), /count 7/);
  });
  it('refuses a page longer than the page size asked for', () => {
    assert.throws(
      page({ results: Array.from({ length: 11 }, (_, i) => i) }),
      /11 items on page 1 of GET \/api\/tags\/ for a page size of 10/,
    );
  });
  it('refuses an answer without results', () =>
    assert.throws(() => checkedPage({ count: 1 }, ASK), /without a results list/));
  it('refuses a next link to another host, naming it', () =>
    assert.throws(
      page({ next: 'http://evil.example:9/api/tags/?page=2' }),
      /next link on page 1 of GET \/api\/tags\/ is http:\/\/evil\.example:9/,
    ));
  it('refuses a next link that repeats a page', () => {
    assert.throws(
      () => checkedPage({ count: 1, next: '/api/tags/?page=2', results: [1] }, { ...ASK, page: 2 }),
      /names page 2 .* not page 3/,
    );
  });
  it('refuses an empty page that names a next one', () =>
    assert.throws(page({ next: '/api/tags/?page=2' }), /no items but a next page/));
  it('bounds a plain list answer (notes, history)', () => {
    assert.deepEqual(checkedArray([1], 'GET /api/documents/1/notes/', 2), [1]);
    assert.throws(() => checkedArray([1, 2, 3], 'GET /api/documents/1/notes/', 2), /3 entries, more than the 2/);
    assert.throws(() => checkedArray({ error: 'x' }, 'GET /api/documents/1/history/', 2), /object, not a list/);
  });
});

describe('a client facing a dms that lies', () => {
  const fakes: HostilePaperless[] = [];
  const clients: DmsClient[] = [];
  after(async () => {
    for (const client of clients) await client.close();
    for (const fake of fakes) await fake.close();
  });
  async function lying(lies: Record<string, ListLie>): Promise<{ fake: HostilePaperless; dms: DmsClient }> {
    const fake = await startHostilePaperless({ lies });
    const dms = createPaperlessClient({ url: fake.url, token: fake.token, retries: 0 });
    fakes.push(fake);
    clients.push(dms);
    return { fake, dms };
  }
  const drain = async (dms: DmsClient) => {
    let documents = 0;
    for await (const page of dms.pages({ pageSize: 100 })) documents += page.documents.length;
    return documents;
  };

  it('stops a document list claiming count 5e9 at its first answer', async () => {
    const { fake, dms } = await lying({ '/api/documents/': { count: 5e9 } });
    await assert.rejects(drain(dms), /the dms said count 5000000000 for page 1 of GET \/api\/documents\//);
    assert.equal(fake.counts()['GET /api/documents/'], 1, 'one request: the count probe');
  });

  it('refuses an id page longer than asked for', async () => {
    const { dms } = await lying({ '/api/documents/': { count: 3, overlong: true } });
    await assert.rejects(drain(dms), /2 items on page 1 of GET \/api\/documents\/ for a page size of 1/);
  });

  for (const kind of [
    'tags',
    'correspondents',
    'document_types',
    'storage_paths',
    'custom_fields',
    'users',
    'groups',
  ]) {
    const path = `/api/${kind}/`;
    const principals = kind === 'users' || kind === 'groups';
    it(`ends a never-ending ${kind} list after ${MAX_LIST_PAGES} pages with an error`, async () => {
      const { fake, dms } = await lying({ [path]: { next: 'endless' } });
      await assert.rejects(
        dms.vocabulary({ principals }),
        new RegExp(`still named a next page after ${MAX_LIST_PAGES} pages of GET ${path}`),
      );
      assert.equal(fake.highestPage(path), MAX_LIST_PAGES);
    });
  }

  it('stops at a foreign next link without asking for a second page', async () => {
    const { fake, dms } = await lying({ '/api/correspondents/': { next: 'foreign' } });
    await assert.rejects(
      dms.vocabulary(),
      /next link on page 1 of GET \/api\/correspondents\/ is http:\/\/evil\.example:9\/steal/,
    );
    assert.equal(fake.highestPage('/api/correspondents/'), 1);
  });

  it('stops at the first repeated next link', async () => {
    const { fake, dms } = await lying({ '/api/storage_paths/': { next: 'repeat' } });
    await assert.rejects(dms.vocabulary(), /next link on page 2 of GET \/api\/storage_paths\/ names page 2/);
    assert.equal(fake.highestPage('/api/storage_paths/'), 2);
  });

  it('refuses a vocabulary page longer than the page size asked for', async () => {
    const { dms } = await lying({ '/api/document_types/': { overlong: true } });
    await assert.rejects(
      dms.vocabulary(),
      /1001 items on page 1 of GET \/api\/document_types\/ for a page size of 1000/,
    );
  });

  it('reads an honest dms as before', async () => {
    const { dms } = await lying({ '/api/tags/': { count: 2500 } });
    const vocabulary = await dms.vocabulary();
    assert.equal(vocabulary.tags.length, 2500);
    const ids: number[] = [];
    for await (const page of dms.pages({ pageSize: 2 })) ids.push(...page.documents.map((d) => d.id));
    assert.deepEqual(ids, [1, 2, 3]);
  });
});

describe('the id snapshot keeps a bounded number of pages in flight', () => {
  it(`never has more than ${ID_PAGES_AHEAD + 1} id pages outstanding, however many the count promises`, async () => {
    const count = 200 * ID_PAGE_SIZE;
    let inFlight = 0;
    let most = 0;
    let idPages = 0;
    const transport: Transport = {
      url: 'http://dms.test',
      versions: () => ({ apiVersion: 9 }),
      close: async () => undefined,
      attempts: () => idPages,
      async send(request: DmsRequest): Promise<DmsResponse> {
        const q = request.query ?? new URLSearchParams();
        const size = Number(q.get('page_size'));
        const page = Number(q.get('page'));
        const ids = q.get('id__in');
        if (ids !== null)
          return {
            status: 200,
            headers: {},
            json: { count: size, next: null, results: ids.split(',').map((id) => ({ id: Number(id) })) },
          };
        if (size === ID_PAGE_SIZE) idPages++;
        inFlight++;
        most = Math.max(most, inFlight);
        // Answers come back a few turns of the event loop later, as a slow dms's would.
        for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
        const first = (page - 1) * size + 1;
        const results = Array.from({ length: Math.min(size, count - first + 1) }, (_, i) => ({ id: first + i }));
        return {
          status: 200,
          headers: {},
          json: { count, next: first + size <= count ? `/api/documents/?page=${page + 1}` : null, results },
        };
      },
    };
    let seen = 0;
    // A filtered read takes the id snapshot (an unfiltered one on API version 10 reads plain pages).
    const plan = { pageSize: 500, dmsWorkers: ID_PAGES_AHEAD };
    for await (const page of streamDocuments(
      transport,
      { pageSize: 500, fields: ['id'], filters: { is_tagged: 'true' } },
      plan,
    ))
      seen += page.documents.length;
    assert.equal(seen, count);
    assert.equal(idPages, 200);
    assert.ok(most <= ID_PAGES_AHEAD + 1, `${most} id pages in flight at once`);
    assert.ok(most > 1, 'pages are still asked for ahead');
  });
});

describe('a next link naming the same list on another host', () => {
  it('says how to fix a proxy that passes Paperless another Host', () => {
    assert.throws(
      () => checkedPage({ count: 11, next: 'http://paperless:8000/api/tags/?page=2', results: [1] }, ASK),
      /is http:\/\/paperless:8000\/api\/tags\/\?page=2, not a page of that list on the dms \(if a reverse proxy .* forward the Host header/,
    );
  });
  it('gives no proxy hint for a link to another list', () => {
    assert.throws(
      () => checkedPage({ count: 11, next: 'http://evil.example/steal/?page=2', results: [1] }, ASK),
      (err: Error) => /not a page of that list on the dms;/.test(err.message) && !err.message.includes('proxy'),
    );
  });
});
