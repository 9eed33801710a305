import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import type { DocumentView } from '../../server/runs/documents/document-view.js';
import { createFileLogger, serviceLogFile } from '../../server/log-file.js';
import { API_TOKEN, call, login, startTestServer, type TestServer, WITH_EXAMPLES } from '../helpers/test-server.js';

describe('GET /api/ui/documents/:id (the document panel) and /api/ui/documents/titles', () => {
  let sim: Simulator;
  let server: TestServer;
  let cookie: string;
  before(async () => {
    sim = await startSimulator();
    server = await startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token }, {}, WITH_EXAMPLES);
    cookie = await login(server.url);
  });
  after(async () => {
    await server?.close();
    await sim?.close();
  });

  it('shows the document in names, its notes, its dms page and where the example rules match its text', async () => {
    const res = await call<DocumentView>(server.url, '/api/ui/documents/1', { cookie });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const view = res.body;
    assert.equal(view.document.title, 'Stromrechnung Januar 2025');
    assert.equal(typeof view.document.correspondent, 'string');
    assert.ok(
      view.document.tags.length > 0 && view.document.tags.every((t) => !/^#?\d+$/.test(t)),
      view.document.tags.join(','),
    );
    assert.deepEqual(view.document.custom_fields.Betrag, { amount: 84.37, currency: 'EUR' });
    assert.equal(view.link, `${sim.url}/documents/1/details`);
    const invoice = view.matches.filter((m) => m.rule_id === 'invoice-de');
    assert.ok(
      invoice.some((m) => m.kind === 'condition') && invoice.some((m) => m.kind === 'extract' && m.label === 'total'),
      JSON.stringify(invoice),
    );
    for (const m of view.matches) assert.ok(m.end > m.start && m.end <= view.document.content.length);
    const total = invoice.find((m) => m.label === 'total')!;
    assert.match(view.document.content.slice(total.start, total.end), /Rechnungsbetrag/i);
    assert.equal(view.content_cut, null);
  });

  it('answers 404 naming the document when the dms has no such document, and 400 for a non-id', async () => {
    const missing = await call<{ error: string }>(server.url, '/api/ui/documents/999', { cookie });
    assert.equal(missing.status, 404);
    assert.match(missing.body.error, /999/);
    const bad = await call<{ error: string }>(server.url, '/api/ui/documents/abc', { cookie });
    assert.equal(bad.status, 400);
  });

  it('names documents by id for lists, leaving out ids the dms does not have', async () => {
    sim.resetCounts();
    const res = await call<{ titles: Record<string, string> }>(server.url, '/api/ui/documents/titles?ids=2,10,999', {
      cookie,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.titles, { 2: 'Telekom Rechnung Februar 2025', 10: 'Telekom Rechnung März 2025' });
    const titleReads = sim.requests().filter((r) => r.startsWith('GET /api/documents/?') && r.includes('id__in'));
    assert.equal(titleReads.length, 1, `one request names them: ${titleReads.join(' ')}`);
    assert.equal((await call(server.url, '/api/ui/documents/titles?ids=1;2', { cookie })).status, 400);
  });

  it('needs a UI session: no cookie and the API token both get 401', async () => {
    assert.equal((await call(server.url, '/api/ui/documents/1')).status, 401);
    assert.equal((await call(server.url, '/api/ui/documents/1', { token: API_TOKEN })).status, 401);
    assert.equal((await call(server.url, '/api/ui/documents/titles?ids=1', { token: API_TOKEN })).status, 401);
  });
});

describe('GET /api/ui/log (the service log download)', () => {
  it('sends the log file of the data dir as a download, and 404 with where the log goes when there is none', async () => {
    const server = await startTestServer();
    try {
      const cookie = await login(server.url);
      const missing = await call<{ error: string }>(server.url, '/api/ui/log', { cookie });
      assert.equal(missing.status, 404);
      assert.match(missing.body.error, /console/);
      createFileLogger(serviceLogFile(server.dataDir)).warn('the dms did not answer');
      const res = await fetch(`${server.url}/api/ui/log`, { headers: { cookie } });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-disposition') ?? '', /^attachment; filename="?dms-rules-service\.log"?$/);
      assert.match(await res.text(), /"level":"warn","msg":"the dms did not answer"/);
      assert.equal((await call(server.url, '/api/ui/log', { token: API_TOKEN })).status, 401);
    } finally {
      await server.close();
    }
  });
});
