import '../../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import { SIM_PROFILES } from '../../../server/dms/demo/profiles.js';
import { startSimulator, type Simulator } from '../../../tools/paperless-sim/simulator.js';
import { PROFILES, behaviourOfProfile } from '../../helpers/profiles.js';

// One profile per release group whose behaviour differs (docs/dms.md, "Releases"). Seed: anna (3) superuser owns
// documents 8 and 9; 7 and 10 are unowned; carla (5) may change what she owns or what nobody owns. Custom field 4
// Rechnungsnummer is a string; tag 5 "Steuer 2025" is a child of 4 "Steuer" from 2.19.0.

const BULK_FAILED = 'Error performing bulk edit, check logs for more detail.';

for (const name of PROFILES) {
  const profile = SIM_PROFILES[name];
  const is = behaviourOfProfile(name);
  describe(`profile ${name} (Paperless-ngx ${profile.release})`, () => {
    let sim: Simulator;
    let link: number;
    let receiver: http.Server;
    let bodies: Array<Record<string, unknown>> = [];
    const call = async (method: string, route: string, body?: unknown, token = sim.token) => {
      const res = await fetch(sim.url + route, {
        method,
        headers: {
          authorization: `Token ${token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      const type = res.headers.get('content-type') ?? '';
      return {
        status: res.status,
        text,
        type,
        json: (type.includes('json') && text ? JSON.parse(text) : null) as Record<string, unknown>,
      };
    };
    const bulkFields = (documents: number[], add: Record<string, unknown>, token?: string) =>
      call(
        'POST',
        '/api/documents/bulk_edit/',
        { documents, method: 'modify_custom_fields', parameters: { add_custom_fields: add, remove_custom_fields: [] } },
        token,
      );
    const fieldsOf = (id: number) => sim.store.getDocument(id)!.custom_fields;

    before(async () => {
      receiver = http.createServer((req, res) => {
        let raw = '';
        req.on('data', (c: Buffer) => (raw += c.toString()));
        req.on('end', () => {
          bodies.push(JSON.parse(raw) as Record<string, unknown>);
          res.end('ok');
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    });
    after(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
    beforeEach(async () => {
      await sim?.close();
      sim = await startSimulator({ profile: name });
      sim.setWorkflowWebhook({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`, echoDelayMs: 0 });
      bodies = [];
      link = (await call('POST', '/api/custom_fields/', { name: 'Siehe auch', data_type: 'documentlink' })).json
        .id as number;
    });
    after(() => sim.close());

    test(`names itself ${profile.release} in X-Version`, async () => {
      const res = await fetch(`${sim.url}/api/tags/`, { headers: { authorization: `Token ${sim.token}` } });
      assert.equal(res.headers.get('x-version'), profile.release);
    });

    test(
      is.bulkNullLinkFails
        ? 'bulk: a null document-link value fails with 400 text after the lower-id fields were stored'
        : 'bulk: a null document-link value is stored',
      async () => {
        const res = await bulkFields([10], { 4: 'R-7', [link]: null });
        if (is.bulkNullLinkFails) {
          assert.deepEqual([res.status, res.text], [400, BULK_FAILED]);
          assert.match(res.type, /^text\/html/);
          assert.deepEqual(fieldsOf(10), [{ value: 'R-7', field: 4 }], 'half written');
        } else {
          assert.equal(res.status, 200);
          assert.deepEqual(fieldsOf(10), [
            { value: 'R-7', field: 4 },
            { value: null, field: link },
          ]);
        }
        const plain = await bulkFields([10], { 4: null });
        assert.equal(plain.status, 200, 'a null value of any other type is fine on every release');
      },
    );

    test(
      is.linkTargetsChecked
        ? 'bulk: a link to a missing document is refused before anything is stored'
        : 'bulk: a link to a missing document is stored, then mirroring fails: 400 text, the dangling link stays',
      async () => {
        const res = await bulkFields([10], { [link]: [999] });
        assert.equal(res.status, 400);
        if (is.linkTargetsChecked) {
          assert.match(res.type, /json/);
          assert.match(JSON.stringify(res.json), /Some documents in value don't exist or were specified twice\./);
          assert.deepEqual(fieldsOf(10), []);
        } else {
          assert.equal(res.text, BULK_FAILED);
          assert.deepEqual(fieldsOf(10), [{ value: [999], field: link }]);
        }
      },
    );

    test(
      is.linkTargetsChecked
        ? 'a link to a document the writer may not change is 403'
        : 'a link to a document the writer may not change is written and mirrored',
      async () => {
        const carla = sim.tokenFor('carla');
        sim.store.grants.set(8, { view: { users: [5], groups: [] }, change: { users: [], groups: [] } });
        const patch = await call(
          'PATCH',
          '/api/documents/10/',
          { custom_fields: [{ field: link, value: [8] }] },
          carla,
        );
        const bulk = await bulkFields([7], { [link]: [8] }, carla);
        if (is.linkTargetsChecked) {
          assert.deepEqual([patch.status, patch.json], [403, { detail: 'Insufficient permissions.' }]);
          assert.deepEqual([bulk.status, bulk.json], [403, { detail: 'Insufficient permissions.' }]);
          assert.deepEqual(fieldsOf(8), []);
        } else {
          assert.deepEqual([patch.status, bulk.status], [200, 200]);
          assert.deepEqual(fieldsOf(8), [{ value: [10, 7], field: link }]);
        }
      },
    );

    test(
      is.ownerChangeAnswers404
        ? 'a non-superuser giving a document away: committed, then 404, no webhook'
        : 'a non-superuser giving a document away: 200',
      async () => {
        const res = await call('PATCH', '/api/documents/7/', { owner: 3 }, sim.tokenFor('carla'));
        assert.equal(sim.store.getDocument(7)!.owner, 3, 'stored either way');
        await sim.webhooksIdle();
        if (is.ownerChangeAnswers404) {
          assert.deepEqual([res.status, res.json], [404, { detail: 'No Document matches the given query.' }]);
          assert.equal(bodies.length, 0);
          const later = await call(
            'POST',
            '/api/documents/bulk_edit/',
            { documents: [7], method: 'add_tag', parameters: { tag: 3 } },
            sim.tokenFor('carla'),
          );
          assert.deepEqual(
            [later.status, later.text],
            [403, 'Insufficient permissions'],
            'every later bulk edit of it is refused',
          );
        } else {
          assert.equal(res.status, 200);
          assert.equal(res.json.owner, 3);
          assert.equal(bodies.length, 1);
        }
      },
    );

    test(
      is.webhookDocId ? 'webhooks carry doc_id' : 'webhooks carry doc_url but no doc_id (no {{ doc_id }} before 3.0)',
      async () => {
        await call('PATCH', '/api/documents/10/', { title: 'x' });
        await sim.webhooksIdle();
        assert.equal(bodies.length, 1);
        assert.match(String(bodies[0].doc_url), /\/documents\/10\/$/);
        assert.equal(bodies[0].doc_id, is.webhookDocId ? '10' : undefined);
      },
    );

    test(
      is.tagHierarchy
        ? 'tags form a tree: PATCH [child] brings the parent'
        : 'tags have no parent: PATCH stores the requested set',
      async () => {
        await call('PATCH', '/api/documents/10/', { tags: [5] });
        assert.deepEqual(sim.store.getDocument(10)!.tags.sort(), is.tagHierarchy ? [4, 5] : [5]);
        const tag = (await call('GET', '/api/tags/5/')).json;
        assert.equal('parent' in tag, is.tagHierarchy);
        await call('POST', '/api/documents/bulk_edit/', { documents: [7], method: 'add_tag', parameters: { tag: 5 } });
        assert.deepEqual(sim.store.getDocument(7)!.tags.sort(), is.tagHierarchy ? [1, 4, 5] : [1, 5]);
      },
    );

    test(
      is.tagHierarchy
        ? 'PATCH [child] on a document holding only the parent stores no tag: the removed parent takes the child along'
        : 'PATCH [child] on a document holding the parent replaces the parent',
      async () => {
        // Document 4 holds only 4 "Steuer"; serialisers.py:1106-1124 at v2.19.0 blocks removed tags and descendants.
        const res = await call('PATCH', '/api/documents/4/', { tags: [5] });
        assert.equal(res.status, 200);
        assert.deepEqual(sim.store.getDocument(4)!.tags, is.tagHierarchy ? [] : [5]);
      },
    );

    test(
      is.bulkValuesValidated
        ? 'bulk values are validated: 400 keyed by field id'
        : 'bulk values are not validated: stored, or the database refuses them (400 text)',
      async () => {
        const integer = (await call('POST', '/api/custom_fields/', { name: 'Anzahl', data_type: 'integer' })).json
          .id as number;
        const bad = await bulkFields([10], { [integer]: 'viele' });
        const long = await bulkFields([10], { 4: 'x'.repeat(100) + '€'.repeat(20) });
        assert.equal(bad.status, 400);
        if (is.bulkValuesValidated) {
          assert.deepEqual(Object.keys(bad.json.add_custom_fields ?? {}), [String(integer)]);
          assert.equal(long.status, 200, '120 characters are within 128');
        } else {
          assert.equal(bad.text, BULK_FAILED);
          assert.equal(long.status, 200);
          const stored = await bulkFields([10], { 4: 'not checked: a date-like text '.repeat(2) });
          assert.equal(stored.status, 200);
        }
      },
    );

    test(
      is.v3Fields
        ? 'documents carry duplicate_documents, root_document and versions; v10 lists have no all'
        : 'documents have no 3.0 fields; every list carries all',
      async () => {
        const doc = (await call('GET', '/api/documents/1/')).json;
        for (const key of ['duplicate_documents', 'root_document', 'versions'])
          assert.equal(key in doc, is.v3Fields, key);
        const list = (await call('GET', '/api/documents/?page_size=1')).json;
        assert.equal('all' in list, !is.v3Fields);
      },
    );
  });
}
