import '../../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DmsError, DmsNotFoundError } from '../../../server/dms/dms-errors.js';
import { createPaperlessClient } from '../../../server/dms/paperless-client.js';
import { startSimulator, type Simulator } from '../../../tools/paperless-sim/simulator.js';

async function get(sim: Simulator, route: string, token: string, version: number | null) {
  const accept = version === null ? 'application/json' : `application/json; version=${version}`;
  const res = await fetch(sim.url + route, { headers: { authorization: `Token ${token}`, accept } });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

const GATES = [
  { profile: '3.0', release: '3.0.5', allowed: [9, 10], refused: [1, 8, 11], fallback: 10 },
  { profile: '2.20', release: '2.20.11', allowed: [1, 5, 9], refused: [10, 11], fallback: 9 },
] as const;

for (const gate of GATES) {
  describe(`profile ${gate.profile}: the API version gate`, () => {
    let sim: Simulator;
    before(async () => {
      sim = await startSimulator({ profile: gate.profile });
    });
    after(() => sim.close());

    test(`allows versions ${gate.allowed.join(', ')} and names itself in X-Version / X-Api-Version`, async () => {
      for (const version of [...gate.allowed, null]) {
        const res = await get(sim, '/api/tags/?page_size=1', sim.token, version);
        assert.equal(res.status, 200, `version ${version}`);
        assert.equal(res.headers.get('x-version'), gate.release);
        assert.equal(res.headers.get('x-api-version'), String(gate.fallback));
      }
    });

    test(`refuses versions ${gate.refused.join(', ')} with 406 before it looks at the token, without version headers`, async () => {
      for (const version of gate.refused) {
        for (const token of [sim.token, 'f'.repeat(40)]) {
          const res = await get(sim, '/api/documents/', token, version);
          assert.equal(res.status, 406, `version ${version}`);
          assert.deepEqual(res.body, { detail: 'Invalid version in "Accept" header.' });
          assert.equal(res.headers.get('x-version'), null);
        }
      }
    });

    test('an allowed version with a bad token is 401 without version headers', async () => {
      const res = await get(sim, '/api/documents/', 'f'.repeat(40), gate.fallback);
      assert.equal(res.status, 401);
      assert.equal(res.headers.get('x-api-version'), null);
    });
  });
}

describe('the client and a Paperless it does not support', () => {
  test('a release without API version 9 or 10 gets one error naming it and the supported range', async () => {
    const sim = await startSimulator({
      profile: { name: 'old', release: '2.15.3', apiVersions: [1, 2, 3, 4, 5, 6, 7, 8], defaultApiVersion: 8 },
    });
    const dms = createPaperlessClient({ url: sim.url, token: sim.token });
    try {
      await assert.rejects(dms.getDocument(1), (err: unknown) => {
        assert.ok(err instanceof DmsError);
        assert.equal(err.dmsStatus, 406);
        assert.match(
          err.message,
          /Paperless-ngx 2\.15\.3 .*neither API version 10 nor 9.*supports Paperless-ngx 2\.16 to 3\.0\.x/,
        );
        return true;
      });
      const ping = await dms.ping();
      assert.equal(ping.ok, false);
      assert.equal(ping.version, '2.15.3');
      assert.equal(ping.serverApiVersion, 8);
      assert.match(ping.error ?? '', /2\.15\.3/);
    } finally {
      await dms.close();
      await sim.close();
    }
  });
});

for (const profile of ['3.0', '2.20'] as const) {
  describe(`profile ${profile}: a token whose user is no superuser`, () => {
    let sim: Simulator;
    let token: string;
    before(async () => {
      sim = await startSimulator({
        profile,
        limitedUser: {
          id: 4,
          permissions: [
            'view_document',
            'change_document',
            'view_tag',
            'view_correspondent',
            'view_documenttype',
            'view_storagepath',
            'view_note',
            'add_note',
          ],
          grants: { documents: [1], tags: [2] },
        },
      });
      token = sim.limitedToken as string;
    });
    after(() => sim.close());

    test('custom fields answer 403 without view_customfield', async () => {
      const res = await get(sim, '/api/custom_fields/', token, null);
      assert.equal(res.status, 403);
      assert.deepEqual(res.body, { detail: 'You do not have permission to perform this action.' });
    });

    test('lists hold only what the user owns, what nobody owns, and what it was granted', async () => {
      const docs = await get(sim, '/api/documents/?ordering=id&page_size=100&fields=id', token, null);
      assert.deepEqual(
        (docs.body.results as Array<{ id: number }>).map((d) => d.id),
        [1, 7, 10, 13],
      );
      const tags = await get(sim, '/api/tags/?page_size=100', token, null);
      assert.deepEqual(
        (tags.body.results as Array<{ name: string }>).map((t) => t.name),
        ['Rechnung', 'rules-processed'],
      );
    });

    test('a document it may not see is 404, for reading and for writing', async () => {
      assert.equal((await get(sim, '/api/documents/2/', token, null)).status, 404);
      const patch = await fetch(`${sim.url}/api/documents/2/`, {
        method: 'PATCH',
        headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
        body: '{"title":"x"}',
      });
      assert.equal(patch.status, 404);
      assert.equal(sim.store.getDocument(2)?.title, 'Telekom Rechnung Februar 2025');
    });

    test("a bulk edit touching a document it may not change is 403; an unknown id stays the serializer's 400", async () => {
      const bulk = (documents: number[]) =>
        fetch(`${sim.url}/api/documents/bulk_edit/`, {
          method: 'POST',
          headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ documents, method: 'add_tag', parameters: { tag: 9 } }),
        });
      assert.equal((await bulk([7, 2])).status, 403);
      assert.ok(!sim.store.getDocument(7)?.tags.includes(9), 'nothing was changed');
      assert.equal((await bulk([999])).status, 400);
      assert.equal((await bulk([7])).status, 200);
    });

    test('the client loads what the token may see and names what it may not', async () => {
      const dms = createPaperlessClient({ url: sim.url, token });
      try {
        const vocab = await dms.vocabulary();
        assert.deepEqual(vocab.forbidden, [{ kind: 'custom_fields', permission: 'view_customfield' }]);
        assert.deepEqual(vocab.custom_fields, []);
        assert.equal(vocab.users, undefined, 'users and groups are listed only for rules that need them');
        const withPrincipals = await dms.vocabulary({ principals: true });
        assert.deepEqual(withPrincipals.users, []);
        assert.deepEqual(withPrincipals.forbidden?.slice(1), [
          { kind: 'users', permission: 'view_user' },
          { kind: 'groups', permission: 'view_group' },
        ]);
        assert.deepEqual(
          vocab.tags.map((t) => t.name),
          ['Rechnung', 'rules-processed'],
        );
        assert.equal((await dms.ping()).forbidden?.[0]?.permission, 'view_customfield');
        await assert.rejects(dms.getDocument(2), DmsNotFoundError);
      } finally {
        await dms.close();
      }
    });
  });
}

for (const profile of ['3.0', '2.20'] as const) {
  describe(`profile ${profile}: Paperless's real length limits`, () => {
    let sim: Simulator;
    const patch = async (id: number, body: unknown) => {
      const res = await fetch(`${sim.url}/api/documents/${id}/`, {
        method: 'PATCH',
        headers: { authorization: `Token ${sim.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    before(async () => {
      sim = await startSimulator({ profile });
    });
    after(() => sim.close());

    test('a title is measured in code points: 128 emoji fit, 129 characters do not', async () => {
      assert.equal((await patch(7, { title: '😀'.repeat(128) })).status, 200);
      assert.deepEqual(await patch(7, { title: `${'😀'.repeat(128)}x` }), {
        status: 400,
        body: { title: ['Ensure this field has no more than 128 characters.'] },
      });
    });

    test('a URL custom field keeps at most 200 characters; a longer one is a server error, not a 400', async () => {
      const field = sim.store.insertObject('custom_fields', {
        name: 'Link',
        data_type: 'url',
        extra_data: { select_options: [], default_currency: null },
      });
      const url = `https://example.com/${'a'.repeat(180)}`;
      assert.equal((await patch(7, { custom_fields: [{ field: field.id, value: url }] })).status, 200);
      // Paperless does not check the length; PostgreSQL refuses it and the answer is a bare 500.
      const res = await fetch(`${sim.url}/api/documents/7/`, {
        method: 'PATCH',
        headers: { authorization: `Token ${sim.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ custom_fields: [{ field: field.id, value: `${url}b` }] }),
      });
      assert.equal(res.status, 500);
      assert.match(await res.text(), /Server Error \(500\)/);
      assert.equal(sim.store.getDocument(7)?.custom_fields[0]?.value, url);
    });
  });
}
