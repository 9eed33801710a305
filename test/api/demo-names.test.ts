import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import { call, login, startTestServer, type TestServer } from '../helpers/test-server.js';

const RULE =
  'rules:\n  - id: urgent-first\n    when:\n      tags: { any: [urgent] }\n    actions:\n      - add_tags: [Steuer]\n';

describe('POST /api/ui/demo/names (a name a condition needs, created in the demo dms)', () => {
  let server: TestServer;
  let cookie: string;
  before(async () => {
    server = await startTestServer(); // no SVC_DMS_URL: the demo dms
    cookie = await login(server.url);
  });
  after(() => server?.close());

  it('turns the save error "the dms has no tag" into a saved rule once the tag is created', async () => {
    const id = (await call(server.url, '/api/ui/rules', { cookie, body: { filename: 'urgent.yml' } })).body
      .id as string;
    const put = () => call(server.url, `/api/ui/rules/${id}`, { cookie, method: 'PUT', rawBody: RULE });
    const refused = await put();
    assert.equal(refused.status, 422);
    assert.match(JSON.stringify(refused.body), /the dms has no tag \\"urgent\\"/);

    const created = await call<{ ok: boolean; kind: string; created: { id: number; name: string } }>(
      server.url,
      '/api/ui/demo/names',
      { cookie, body: { kind: 'tags', name: 'urgent' } },
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.created.name, 'urgent');
    assert.equal((await put()).status, 200);
    // Asked again, the same tag answers: no second "urgent".
    const again = await call<{ created: { id: number } }>(server.url, '/api/ui/demo/names', {
      cookie,
      body: { kind: 'tags', name: 'urgent' },
    });
    assert.equal(again.body.created.id, created.body.created.id);
  });

  it('refuses kinds it cannot create from a name, empty names, and a request without a session', async () => {
    const path = await call(server.url, '/api/ui/demo/names', { cookie, body: { kind: 'storage_paths', name: 'x' } });
    assert.equal(path.status, 400);
    const empty = await call(server.url, '/api/ui/demo/names', { cookie, body: { kind: 'tags', name: ' ' } });
    assert.equal(empty.status, 400);
    const anonymous = await call(server.url, '/api/ui/demo/names', { body: { kind: 'tags', name: 'x' } });
    assert.equal(anonymous.status, 401);
  });
});

describe('POST /api/ui/demo/names against a real dms', () => {
  let sim: Simulator;
  let server: TestServer;
  before(async () => {
    sim = await startSimulator();
    server = await startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token });
  });
  after(async () => {
    await server?.close();
    await sim?.close();
  });

  it('refuses with 409 and creates nothing in Paperless', async () => {
    const cookie = await login(server.url);
    const before = sim.store.objects.tags.length;
    const res = await call<{ error: string }>(server.url, '/api/ui/demo/names', {
      cookie,
      body: { kind: 'tags', name: 'urgent' },
    });
    assert.equal(res.status, 409);
    assert.match(res.body.error, /create it in Paperless/);
    assert.equal(sim.store.objects.tags.length, before);
  });
});
