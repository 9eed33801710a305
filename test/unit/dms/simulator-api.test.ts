import '../../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateDocuments } from '../../../tools/paperless-sim/generator.js';
import { startSimulator, type Simulator } from '../../../tools/paperless-sim/simulator.js';

describe('simulator API behaviour', () => {
  let sim: Simulator;
  const request = async (method: string, route: string, body?: unknown, accept = 'application/json; version=10') => {
    const res = await fetch(sim.url + route, {
      method,
      headers: {
        authorization: `Token ${sim.token}`,
        accept,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return {
      status: res.status,
      body: (text ? JSON.parse(text) : null) as Record<string, unknown> & { results: Array<Record<string, unknown>> },
    };
  };
  const ids = async (query: string) =>
    (await request('GET', `/api/documents/?ordering=id&page_size=100&${query}`)).body.results.map((d) => d.id);

  before(async () => {
    sim = await startSimulator();
  });
  after(() => sim.close());

  test('filters the client uses select the documents Paperless would', async () => {
    assert.deepEqual(await ids('id__in=1,3,99'), [1, 3]);
    assert.deepEqual(await ids('tags__id__all=2,9'), [1, 2]);
    assert.deepEqual(await ids('tags__id__in=8,6'), [3, 6, 8, 9, 12]);
    assert.deepEqual(await ids('tags__id__none=1,2,abc'), [3, 4, 8, 9, 12]);
    assert.deepEqual(await ids('is_in_inbox=true'), [6, 7, 10, 13]);
    assert.deepEqual(await ids('is_tagged=0'), []);
    assert.deepEqual(await ids('correspondent__id=2'), [2, 10]);
    assert.deepEqual(await ids('correspondent__isnull=true'), [6, 7, 8, 12]);
    assert.deepEqual(await ids('document_type__id=4'), [4, 13]);
    assert.deepEqual(await ids('title__icontains=TELEKOM'), [2, 10]);
    assert.deepEqual(
      await ids('content__icontains=rechnungsbetrag&correspondent__name__iexact=stadtwerke%20m%C3%BCnchen'),
      [1],
    );
    assert.deepEqual(await ids('created__gte=2025-03-01&created__lt=2025-04-01'), [5, 6, 7, 10, 13]);
    assert.deepEqual(
      await ids('unknown_filter=1').then((r) => r.length),
      12,
      'unknown parameters are ignored, as in Paperless',
    );
  });

  test('custom_field_query compares monetary amounts and select labels', async () => {
    const q = (query: unknown) => ids(`custom_field_query=${encodeURIComponent(JSON.stringify(query))}`);
    assert.deepEqual(await q(['Betrag', 'gte', '100']), [5, 13]);
    assert.deepEqual(
      await q([
        'AND',
        [
          ['Betrag', 'gte', '30'],
          ['Zahlungsstatus', 'exact', 'offen'],
        ],
      ]),
      [2, 5],
    );
    assert.deepEqual(await q(['NOT', [1, 'exists', true]]), [3, 4, 6, 7, 8, 9, 10]);
  });

  test('modified__gt finds what changed after a moment: PATCH, notes and a bulk edit once its task ran', async () => {
    const mark = new Date(Date.now() - 1).toISOString();
    assert.deepEqual(await ids(`modified__gt=${encodeURIComponent(mark)}`), []);
    await request('POST', '/api/documents/bulk_edit/', { documents: [4], method: 'add_tag', parameters: { tag: 3 } });
    await request('PATCH', '/api/documents/8/', { title: 'Mietvertrag' });
    await request('POST', '/api/documents/9/notes/', { note: 'ok' });
    assert.deepEqual(
      await ids(`modified__gt=${encodeURIComponent(mark)}`),
      [4, 8, 9],
      'bulk_update_documents → post_save → update_filename_and_move_files moved 4',
    );
    assert.ok((await ids('tags__id=3')).includes(4));
  });

  test('PUT requires the relations and tags; PATCH does not', async () => {
    const put = await request('PUT', '/api/documents/7/', { title: 'x' });
    assert.equal(put.status, 400);
    assert.deepEqual(Object.keys(put.body).sort(), ['correspondent', 'document_type', 'storage_path', 'tags']);
    assert.equal((await request('PATCH', '/api/documents/7/', { title: 'Brief Stadtwerke' })).status, 200);
  });

  test('remove_tag drops descendants; add_tag brings ancestors', async () => {
    await request('POST', '/api/documents/bulk_edit/', { documents: [12], method: 'add_tag', parameters: { tag: 5 } });
    assert.deepEqual(((await request('GET', '/api/documents/12/')).body.tags as number[]).sort(), [4, 5, 8]);
    await request('POST', '/api/documents/bulk_edit/', {
      documents: [12],
      method: 'remove_tag',
      parameters: { tag: 4 },
    });
    assert.deepEqual((await request('GET', '/api/documents/12/')).body.tags, [8]);
  });

  test('API version 9 adds "all" to lists; version 10 does not', async () => {
    const v9 = await request(
      'GET',
      '/api/documents/?page_size=2&ordering=id',
      undefined,
      'application/json; version=9',
    );
    assert.deepEqual(Object.keys(v9.body), ['count', 'next', 'previous', 'all', 'results']);
    assert.equal((v9.body.all as number[]).length, v9.body.count);
    const v10 = await request('GET', '/api/documents/?page_size=2&ordering=id');
    assert.deepEqual(Object.keys(v10.body), ['count', 'next', 'previous', 'results']);
  });

  test('page_size is capped and falls back to 25 when invalid', async () => {
    assert.equal((await request('GET', '/api/documents/?page_size=0')).body.results.length, 12);
    sim.addDocument({});
    const many = await request('GET', '/api/tags/?page_size=abc');
    assert.equal(many.status, 200);
  });

  test('the control API adds documents and generates more', async () => {
    const auth = { authorization: `Token ${sim.token}`, 'content-type': 'application/json' };
    const added = await fetch(`${sim.url}/__sim/documents`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ title: 'Per Control-API' }),
    });
    assert.equal(added.status, 201);
    const { id } = (await added.json()) as { id: number };
    assert.equal((await request('GET', `/api/documents/${id}/`)).body.title, 'Per Control-API');
    const before = sim.store.documents.size;
    const gen = await fetch(`${sim.url}/__sim/generate`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ count: 50, seed: 3 }),
    });
    assert.equal(gen.status, 201);
    assert.equal(sim.store.documents.size, before + 50);
  });
});

describe('the synthetic document generator', () => {
  test('is deterministic per seed and differs between seeds', () => {
    assert.deepEqual(generateDocuments(200, 7), generateDocuments(200, 7));
    assert.notDeepEqual(generateDocuments(50, 7), generateDocuments(50, 8));
  });

  test('makes realistic German and English documents that reference the seed vocabulary', () => {
    const docs = generateDocuments(2000, 11);
    assert.equal(new Set(docs.map((d) => d.id)).size, 2000);
    assert.ok(
      docs.some((d) => /Rechnungsbetrag: [\d.]+,\d\d EUR/.test(d.content)),
      'German invoices with German amounts',
    );
    assert.ok(
      docs.some((d) => /Total: USD [\d,]+\.\d\d/.test(d.content)),
      'English invoices',
    );
    assert.ok(docs.some((d) => /Kassenbon/.test(d.content)) && docs.some((d) => /RECEIPT/.test(d.content)));
    for (const d of docs) {
      assert.ok(d.correspondent === null || (d.correspondent >= 1 && d.correspondent <= 5));
      assert.ok(d.document_type === null || (d.document_type >= 1 && d.document_type <= 4));
      assert.ok(d.tags.every((t) => t >= 1 && t <= 9));
      assert.match(d.created, /^20(22|23|24|25)-\d\d-\d\d$/);
      for (const cf of d.custom_fields) if (cf.field === 1) assert.match(String(cf.value), /^(EUR|USD)\d+\.\d\d$/);
    }
  });

  test('100,000 documents fit in memory in the simulator', async () => {
    const sim = await startSimulator({ seedDocuments: false, generate: { count: 100_000, seed: 1 } });
    try {
      assert.equal(sim.store.documents.size, 100_000);
      const res = await fetch(`${sim.url}/api/documents/?page=1000&page_size=100&ordering=id&fields=id`, {
        headers: { authorization: `Token ${sim.token}` },
      });
      const body = (await res.json()) as { count: number; next: string | null; results: Array<{ id: number }> };
      assert.equal(body.count, 100_000);
      assert.equal(body.next, null);
      assert.equal(body.results.length, 100);
    } finally {
      await sim.close();
    }
  });
});

test('generateDmsDocuments gives the same documents in the wire shape of the API', async () => {
  const { generateDmsDocuments } = await import('../../../tools/paperless-sim/index.js');
  const [wire] = generateDmsDocuments(1, 5);
  const [raw] = generateDocuments(1, 5);
  assert.equal(wire.title, raw.title);
  assert.equal(wire.content, raw.content);
  assert.ok('archived_file_name' in wire && 'user_can_change' in wire && Array.isArray(wire.versions));
});
