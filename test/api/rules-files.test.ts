import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { API_TOKEN, call, login, startTestServer, type TestServer, WITH_EXAMPLES } from '../helpers/test-server.js';

interface FileEntry {
  id: string;
  name: string;
  path: string;
  package: string | null;
  is_vars: boolean;
  has_draft: boolean;
  error: { message: string; line: number | null; column: number | null } | null;
  rules: string[];
}
interface ListBody {
  files: FileEntry[];
  loaded: Record<string, string | null>;
}

const RULE = (id: string, extra = '') =>
  `rules:\n  - id: ${id}\n    description: ${id} described\n    actions:\n      - add_tags: [Steuer]\n${extra}`;

describe('rule files API', () => {
  let server: TestServer;
  let cookie: string;
  const list = async () => (await call<ListBody>(server.url, '/api/ui/rules', { cookie })).body;
  const create = (filename: unknown) => call(server.url, '/api/ui/rules', { cookie, body: { filename } });
  const put = (id: string, content: string, query = '') =>
    call(server.url, `/api/ui/rules/${id}${query}`, { cookie, method: 'PUT', rawBody: content });

  before(async () => {
    server = await startTestServer({}, {}, WITH_EXAMPLES);
    cookie = await login(server.url);
  });
  after(() => server.close());

  it('copies the example rules into an empty rules dir on first start, and they all load', async () => {
    const body = await list();
    const paths = body.files.map((f) => f.path);
    for (const expected of [
      '_vars.yml',
      'contracts.yml',
      'finance/_vars.yml',
      'finance/invoices.yml',
      'finance/receipts.yml',
      'inbox.yml',
    ]) {
      assert.ok(paths.includes(expected), `${expected} missing from ${paths.join(', ')}`);
    }
    assert.deepEqual(paths, [...paths].sort(), 'files are listed in path order');
    assert.deepEqual(
      body.files.filter((f) => f.error),
      [],
      'every example validates',
    );
    assert.ok(fs.existsSync(path.join(server.rulesDir, 'finance', 'invoices.yml')));
    assert.equal(typeof body.loaded['invoice-de'], 'string');
    assert.ok(Object.keys(body.loaded).length >= 10);
  });

  it('describes each file with id, name, path, package, is_vars and has_draft', async () => {
    const body = await list();
    const vars = body.files.find((f) => f.path === 'finance/_vars.yml')!;
    assert.equal(vars.id, Buffer.from('finance/_vars.yml').toString('base64url'));
    assert.equal(vars.name, '_vars.yml');
    assert.equal(vars.package, 'finance');
    assert.equal(vars.is_vars, true);
    assert.equal(vars.has_draft, false);
    const top = body.files.find((f) => f.path === 'inbox.yml')!;
    assert.equal(top.package, null);
    assert.equal(top.is_vars, false);
    assert.deepEqual(top.rules, ['scan-title', 'inbox-done']);
  });

  it('creates an empty file, reads it, saves it, and lists its rules', async () => {
    const created = await create('tax/notices.yml');
    assert.equal(created.status, 200);
    assert.deepEqual(created.body, {
      ok: true,
      id: Buffer.from('tax/notices.yml').toString('base64url'),
      name: 'notices.yml',
      path: 'tax/notices.yml',
    });
    const id = created.body.id;
    assert.equal(fs.readFileSync(path.join(server.rulesDir, 'tax', 'notices.yml'), 'utf8'), '');

    const read = await call(server.url, `/api/ui/rules/${id}`, { cookie });
    assert.deepEqual(read.body, { id, name: 'notices.yml', path: 'tax/notices.yml', content: '' });

    const saved = await put(id, RULE('tax-notice'));
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    assert.equal(saved.body.ok, true);
    assert.deepEqual(saved.body.warnings, []);
    assert.equal(fs.readFileSync(path.join(server.rulesDir, 'tax', 'notices.yml'), 'utf8'), RULE('tax-notice'));
    const body = await list();
    assert.equal(body.loaded['tax-notice'], 'tax-notice described');
    assert.equal(body.files.find((f) => f.id === id)?.package, 'tax');
  });

  it('maps a rule without a description to null', async () => {
    const { id } = (await create('plain.yml')).body as { id: string };
    assert.equal((await put(id, 'rules:\n  - id: plain-rule\n')).status, 200);
    assert.equal((await list()).loaded['plain-rule'], null);
  });

  it('answers 409 when the file exists and 400 for bad names', async () => {
    assert.equal((await create('inbox.yml')).status, 409);
    for (const bad of [
      '../x.yml',
      'a/b/c.yml',
      'notes.txt',
      '/abs.yml',
      '',
      'x'.repeat(300) + '.yml',
      'a\\b.yml',
      '.hidden.yml',
    ]) {
      const res = await create(bad);
      assert.equal(res.status, 400, `${bad}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.ok, false);
      assert.equal(typeof res.body.error, 'string');
    }
    assert.equal((await create(42)).status, 400);
  });

  it('answers 404 for unknown ids on every file route', async () => {
    const unknown = Buffer.from('missing.yml').toString('base64url');
    assert.equal((await call(server.url, `/api/ui/rules/${unknown}`, { cookie })).status, 404);
    assert.equal((await put(unknown, RULE('x'))).status, 404);
    assert.equal((await call(server.url, `/api/ui/rules/${unknown}`, { cookie, method: 'DELETE' })).status, 404);
    assert.equal(
      (await call(server.url, `/api/ui/rules/${unknown}/preview`, { cookie, method: 'POST', rawBody: 'a: 1' })).status,
      404,
    );
    assert.equal((await call(server.url, `/api/ui/rules/${unknown}?draft=true`, { cookie })).status, 404);
    assert.equal(fs.existsSync(path.join(server.rulesDir, 'missing.yml')), false, 'a PUT never creates a file');
  });

  it('deletes a file and unloads its rules', async () => {
    const { id } = (await create('to-delete.yml')).body as { id: string };
    await put(id, RULE('doomed'));
    assert.ok('doomed' in (await list()).loaded);
    const res = await call(server.url, `/api/ui/rules/${id}`, { cookie, method: 'DELETE' });
    assert.deepEqual(res.body, { ok: true });
    assert.equal(fs.existsSync(path.join(server.rulesDir, 'to-delete.yml')), false);
    const body = await list();
    assert.ok(!('doomed' in body.loaded));
    assert.ok(!body.files.some((f) => f.id === id));
  });

  it('requires a session for the UI routes and accepts a session or the token for reload', async () => {
    assert.equal((await call(server.url, '/api/ui/rules')).status, 401);
    assert.equal(
      (await call(server.url, '/api/ui/rules', { token: API_TOKEN })).status,
      401,
      'the bearer token does not open UI routes',
    );
    assert.equal((await call(server.url, '/api/ui/schema')).status, 401);
    assert.equal((await call(server.url, '/api/reload', { method: 'POST' })).status, 401);
    assert.equal((await call(server.url, '/api/reload', { method: 'POST', token: 'wrong' })).status, 401);
    const byToken = await call(server.url, '/api/reload', { method: 'POST', token: API_TOKEN });
    assert.equal(byToken.status, 200);
    assert.equal(byToken.body.ok, true);
    assert.equal((await call(server.url, '/api/reload', { method: 'POST', cookie })).status, 200);
    const crossSite = await call(server.url, '/api/ui/rules', {
      cookie,
      body: { filename: 'csrf.yml' },
      headers: { origin: 'http://evil.example' },
    });
    assert.equal(crossSite.status, 403);
  });
});
