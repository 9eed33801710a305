import '../../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PROJECT_ROOT } from '../../../server/project-paths.js';
import { startSimulator, type Simulator } from '../../../tools/paperless-sim/simulator.js';

// The reference fixtures live beside the clone (../shared); the committed copy is the fallback.
const SHARED = path.join(PROJECT_ROOT, '..', 'shared', 'dms', 'fixtures');
const FIXTURES = fs.existsSync(path.join(SHARED, 'errors.json'))
  ? SHARED
  : path.join(PROJECT_ROOT, 'test', 'fixtures', 'paperless');
const fixture = (name: string): unknown => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8'));

/** Keys (in order) and JSON types, recursively; arrays by their elements. */
function shape(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.map(shape);
  if (typeof value === 'object') return Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, shape(v)]);
  return typeof value;
}

interface ErrorCase {
  case: string;
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** The fixtures are Paperless-ngx 3.0.5 under API version 10; the 2.20 profile is spoken to with version 9, whose lists add `all`. */
const PROFILES = [
  { name: '3.0', api: 10, release: '3.0.5' },
  { name: '2.20', api: 9, release: '2.20.11' },
] as const;

for (const profile of PROFILES)
  describe(`the simulator answers in the shapes of the Paperless fixtures (profile ${profile.name}, API version ${profile.api})`, () => {
    let sim: Simulator;
    let auth: Record<string, string>;
    const get = async (route: string, headers: Record<string, string> = auth) => {
      const res = await fetch(sim.url + route, { headers, redirect: 'manual' });
      const text = await res.text();
      return {
        status: res.status,
        headers: res.headers,
        text,
        json: text && res.headers.get('content-type') === 'application/json' ? (JSON.parse(text) as unknown) : null,
      };
    };
    const send = async (method: string, route: string, body: unknown, contentType = 'application/json') => {
      const res = await fetch(sim.url + route, {
        method,
        headers: { ...auth, 'content-type': contentType },
        body: typeof body === 'string' ? body : JSON.stringify(body),
        redirect: 'manual',
      });
      const text = await res.text();
      return {
        status: res.status,
        headers: res.headers,
        text,
        json: res.headers.get('content-type') === 'application/json' ? (JSON.parse(text) as unknown) : null,
      };
    };
    const errors = (fixture('errors.json') as { errors: ErrorCase[] }).errors;
    const expected = (name: string) => {
      const found = errors.find((e) => e.case.startsWith(name));
      assert.ok(found, `fixture case "${name}"`);
      return found;
    };

    /** A list body with the `all` key checked and removed: API versions below 10 add it, 10 does not. */
    const withoutAll = (json: unknown): Record<string, unknown> => {
      const { all, ...rest } = json as Record<string, unknown>;
      if (profile.api < 10) assert.ok(Array.isArray(all), 'version 9 lists carry all');
      else assert.equal(all, undefined);
      return rest;
    };

    /** 2.x documents have no `duplicate_documents`, `root_document` or `versions` (DocumentSerializer.Meta.fields at v2.20.11). */
    const asRelease = (doc: unknown): Record<string, unknown> => {
      if (profile.api >= 10) return doc as Record<string, unknown>;
      const { duplicate_documents: _d, root_document: _r, versions: _v, ...rest } = doc as Record<string, unknown>;
      return rest;
    };
    const pageAsRelease = (page: Record<string, unknown>): Record<string, unknown> => ({
      ...page,
      results: (page.results as unknown[]).map(asRelease),
    });

    before(async () => {
      sim = await startSimulator({ profile: profile.name });
      auth = { authorization: `Token ${sim.token}`, accept: `application/json; version=${profile.api}` };
    });
    after(() => sim.close());

    test('documents list pages 1 and 2 equal the fixtures (links aside)', async () => {
      for (const [route, file] of [
        ['/api/documents/?ordering=id&page_size=10', 'documents-page1.json'],
        ['/api/documents/?ordering=id&page=2&page_size=10', 'documents-page2.json'],
      ]) {
        const res = await get(route);
        assert.equal(res.status, 200);
        const body = withoutAll(res.json);
        const want = pageAsRelease(fixture(file) as Record<string, unknown>);
        assert.deepEqual(shape(body), shape(want), file);
        const strip = (link: unknown) => (typeof link === 'string' ? link.replace(/^http:\/\/[^/]+/, '') : link);
        assert.deepEqual(
          { ...body, next: strip(body.next), previous: strip(body.previous) },
          { ...want, next: strip(want.next), previous: strip(want.previous) },
          file,
        );
      }
    });

    test('pagination links are absolute, sorted, and page 2 has no page in previous', async () => {
      const res = await get('/api/documents/?page_size=10&ordering=id');
      assert.equal((res.json as { next: string }).next, `${sim.url}/api/documents/?ordering=id&page=2&page_size=10`);
      const page2 = await get('/api/documents/?page=2&page_size=10&ordering=id');
      assert.equal((page2.json as { previous: string }).previous, `${sim.url}/api/documents/?ordering=id&page_size=10`);
    });

    test('document detail equals document-1.json', async () => {
      const res = await get('/api/documents/1/');
      assert.deepEqual(shape(res.json), shape(asRelease(fixture('document-1.json'))));
      assert.deepEqual(res.json, asRelease(fixture('document-1.json')));
      assert.equal(res.headers.get('x-api-version'), String(profile.api));
      assert.equal(res.headers.get('x-version'), profile.release);
      assert.equal(res.headers.get('content-type'), 'application/json');
    });

    for (const kind of ['tags', 'correspondents', 'document_types', 'storage_paths', 'custom_fields']) {
      test(`${kind} list equals ${kind}.json`, async () => {
        const res = await get(`/api/${kind}/?page_size=100`);
        assert.equal(res.status, 200);
        const body = withoutAll(res.json);
        assert.deepEqual(shape(body), shape(fixture(`${kind}.json`)));
        assert.deepEqual(body, fixture(`${kind}.json`));
      });
    }

    const simple: Array<[string, string, Record<string, string> | null]> = [
      ['no credentials', '/api/documents/', {}],
      ['unknown token', '/api/documents/', { authorization: `Token ${'0'.repeat(40)}` }],
      ['Bearer keyword', '/api/documents/', null],
      [
        'wrong basic auth',
        '/api/documents/',
        { authorization: `Basic ${Buffer.from('anna:wrong').toString('base64')}` },
      ],
      ['unsupported API version', '/api/documents/', null],
      ['document id does not exist', '/api/documents/999/', null],
      ['non-numeric id', '/api/documents/abc/', null],
      ['tag id does not exist', '/api/tags/999/', null],
      ['page out of range', '/api/documents/?page=99', null],
      ['missing trailing slash', '/api/documents?page=2', null],
      ['invalid value for an id-list filter', '/api/documents/?id__in=1,x', null],
      ['invalid datetime filter', '/api/documents/?modified__gt=2025-03-01T00:00:00+01:00', null],
      ['custom_field_query is not JSON', '/api/documents/?custom_field_query=Betrag', null],
      [
        'custom_field_query names an unknown field',
        `/api/documents/?custom_field_query=${encodeURIComponent('["Brutto","exists",true]')}`,
        null,
      ],
    ];
    for (const [name, route, headers] of simple) {
      test(`GET error: ${name}`, async () => {
        const want = expected(name);
        const h =
          headers ??
          (name === 'Bearer keyword'
            ? { authorization: `Bearer ${sim.token}` }
            : name.startsWith('unsupported')
              ? { ...auth, accept: 'application/json; version=11' }
              : auth);
        const res = await get(route, h);
        assert.equal(res.status, want.status);
        for (const [key, value] of Object.entries(want.headers)) assert.equal(res.headers.get(key), value, key);
        if (want.status === 302) assert.equal(res.text, '');
        else assert.deepEqual(res.json, want.body);
      });
    }

    const writes: Array<[string, string, string, unknown, string?]> = [
      ['unknown tag id in PATCH', 'PATCH', '/api/documents/10/', { tags: [1, 999] }],
      ['name instead of id', 'PATCH', '/api/documents/10/', { correspondent: 'Telekom' }],
      ['tags not a list', 'PATCH', '/api/documents/10/', { tags: 2 }],
      ['title longer than 128', 'PATCH', '/api/documents/10/', { title: 'x'.repeat(129) }],
      ['created in a non-ISO format', 'PATCH', '/api/documents/10/', { created: '06.03.2025' }],
      ['archive serial number already used', 'PATCH', '/api/documents/10/', { archive_serial_number: 101 }],
      [
        'archive serial number held by a document in the trash',
        'PATCH',
        '/api/documents/10/',
        { archive_serial_number: 104 },
      ],
      [
        'select custom field given the label',
        'PATCH',
        '/api/documents/10/',
        {
          custom_fields: [
            { field: 1, value: 'EUR39.95' },
            { field: 3, value: 'offen' },
          ],
        },
      ],
      [
        'monetary custom field in locale format',
        'PATCH',
        '/api/documents/10/',
        { custom_fields: [{ field: 1, value: '39,95 €' }] },
      ],
      [
        'date custom field in locale format',
        'PATCH',
        '/api/documents/10/',
        { custom_fields: [{ field: 2, value: '20.03.2025' }] },
      ],
      ["custom field entry without 'value'", 'PATCH', '/api/documents/10/', { custom_fields: [{ field: 4 }] }],
      ['custom_fields null', 'PATCH', '/api/documents/10/', { custom_fields: null }],
      ['create tag whose name/owner pair exists', 'POST', '/api/tags/', { name: 'Rechnung', owner: 3 }],
      [
        'create custom field with an existing name',
        'POST',
        '/api/custom_fields/',
        { name: 'Betrag', data_type: 'monetary' },
      ],
      ['select custom field without options', 'POST', '/api/custom_fields/', { name: 'Status', data_type: 'select' }],
      [
        'bulk edit: unknown document id',
        'POST',
        '/api/documents/bulk_edit/',
        { documents: [999], method: 'add_tag', parameters: { tag: 1 } },
      ],
      [
        'bulk edit: unknown method',
        'POST',
        '/api/documents/bulk_edit/',
        { documents: [1], method: 'set_title', parameters: {} },
      ],
      [
        'bulk edit: unknown tag',
        'POST',
        '/api/documents/bulk_edit/',
        { documents: [1], method: 'add_tag', parameters: { tag: 999 } },
      ],
      [
        'bulk edit: modify_tags without remove_tags',
        'POST',
        '/api/documents/bulk_edit/',
        { documents: [1], method: 'modify_tags', parameters: { add_tags: [3] } },
      ],
      [
        'bulk edit sent as form data',
        'POST',
        '/api/documents/bulk_edit/',
        'documents=1&method=add_tag',
        'application/x-www-form-urlencoded',
      ],
      ['method not allowed', 'POST', '/api/documents/10/', {}],
      ["note POST without 'note' key", 'POST', '/api/documents/1/notes/', { text: 'x' }],
      ['note DELETE without id', 'DELETE', '/api/documents/1/notes/', undefined],
      ['token endpoint, bad credentials', 'POST', '/api/token/', { username: 'anna', password: 'x' }],
    ];
    for (const [name, method, route, body, contentType] of writes) {
      test(`write error: ${name}`, async () => {
        const want = expected(name);
        const res = await send(method, route, body === undefined ? '' : body, contentType);
        assert.equal(res.status, want.status);
        assert.deepEqual(res.json, want.body);
        if (want.headers.Allow) assert.equal(res.headers.get('allow'), want.headers.Allow);
      });
    }

    test('malformed JSON answers 400 with a JSON parse error detail', async () => {
      const want = expected('malformed JSON body');
      const res = await send('PATCH', '/api/documents/10/', '{tags: [1]}');
      assert.equal(res.status, want.status);
      assert.deepEqual(shape(res.json), shape(want.body));
      assert.match((res.json as { detail: string }).detail, /^JSON parse error - /);
    });

    test('the failed writes above changed nothing', async () => {
      const doc = (await get('/api/documents/10/')).json as Record<string, unknown>;
      const original = (fixture('documents-page1.json') as { results: Array<Record<string, unknown>> }).results.find(
        (d) => d.id === 10,
      );
      assert.deepEqual(doc, asRelease(original));
    });
  });
