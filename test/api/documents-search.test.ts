import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import { call, login, startTestServer, type TestServer } from '../helpers/test-server.js';

interface SearchBody {
  count: number;
  documents: Array<{ id: number; title: string; created: string | null }>;
  error?: string;
}

describe('GET /api/ui/documents?search= (the run panel picks documents by title)', () => {
  let sim: Simulator;
  let server: TestServer;
  let cookie: string;
  before(async () => {
    sim = await startSimulator();
    server = await startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token });
    cookie = await login(server.url);
  });
  after(async () => {
    await server?.close();
    await sim?.close();
  });

  it('finds documents whose title contains the text, case-insensitively', async () => {
    const res = await call<SearchBody>(server.url, '/api/ui/documents?search=telekom%20rechnung', { cookie });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.documents.map((d) => d.id).sort((a, b) => a - b),
      [2, 10],
    );
    assert.equal(res.body.count, 2);
    assert.ok(res.body.documents.every((d) => /telekom rechnung/i.test(d.title)));
  });

  it('answers an empty list when nothing matches', async () => {
    const res = await call<SearchBody>(server.url, '/api/ui/documents?search=no-such-title-anywhere', { cookie });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.documents, []);
  });

  it('offers the most recently added documents for no text, and searches one character too', async () => {
    const latest = await call<SearchBody>(server.url, '/api/ui/documents?search=', { cookie });
    assert.equal(latest.status, 200, JSON.stringify(latest.body));
    const added = latest.body.documents.map((d) => sim.store.getDocument(d.id)!.added);
    assert.ok(added.length > 1);
    assert.deepEqual(added, [...added].sort().reverse(), 'newest first');
    const one = await call<SearchBody>(server.url, '/api/ui/documents?search=z', { cookie });
    assert.equal(one.status, 200);
    assert.ok(one.body.documents.length > 0 && one.body.documents.every((d) => /z/i.test(d.title)));
  });

  it('refuses a search longer than 200 characters with a message', async () => {
    const res = await call<SearchBody>(server.url, `/api/ui/documents?search=${'a'.repeat(201)}`, { cookie });
    assert.equal(res.status, 400);
    assert.match(res.body.error ?? '', /at most 200 characters/);
  });

  it('needs a session', async () => {
    const res = await call(server.url, '/api/ui/documents?search=telekom');
    assert.equal(res.status, 401);
  });
});
