import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import YAML from 'yaml';
import { API_TOKEN, call, login, startTestServer, type TestServer, WITH_EXAMPLES } from '../helpers/test-server.js';

const b64 = (s: string) => Buffer.from(s).toString('base64url');

describe('drafts', () => {
  let server: TestServer;
  let cookie: string;
  const id = b64('inbox.yml');
  const draftFile = () => path.join(server.dataDir, 'drafts', 'inbox.yml');
  const hasDraft = async () =>
    (
      await call<{ files: Array<{ id: string; has_draft: boolean }> }>(server.url, '/api/ui/rules', { cookie })
    ).body.files.find((f) => f.id === id)?.has_draft;

  before(async () => {
    server = await startTestServer({}, {}, WITH_EXAMPLES);
    cookie = await login(server.url);
  });
  after(() => server.close());

  it('stores an invalid draft in the data dir, reports its validation, and never loads it', async () => {
    const published = fs.readFileSync(path.join(server.rulesDir, 'inbox.yml'), 'utf8');
    const res = await call(server.url, `/api/ui/rules/${id}?draft=true`, {
      cookie,
      method: 'PUT',
      rawBody: 'rules:\n  - id: draft-only\n    bogus: 1\n',
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.ok, true);
    assert.equal(res.body.draft, true);
    const validation = res.body.validation as { ok: boolean; error: string; line: number; column: number };
    assert.equal(validation.ok, false);
    assert.match(validation.error, /unknown key "bogus"/);
    assert.equal(validation.line, 3);
    assert.equal(validation.column, 5);

    assert.equal(fs.readFileSync(draftFile(), 'utf8'), 'rules:\n  - id: draft-only\n    bogus: 1\n');
    assert.equal(
      fs.readFileSync(path.join(server.rulesDir, 'inbox.yml'), 'utf8'),
      published,
      'the published file is untouched',
    );
    assert.equal(await hasDraft(), true);
    const list = await call<{ loaded: Record<string, unknown> }>(server.url, '/api/ui/rules', { cookie });
    assert.ok(!('draft-only' in list.body.loaded));
    assert.ok('inbox-done' in list.body.loaded);

    const draft = await call(server.url, `/api/ui/rules/${id}?draft=true`, { cookie });
    assert.equal(draft.body.content, 'rules:\n  - id: draft-only\n    bogus: 1\n');
    const current = await call(server.url, `/api/ui/rules/${id}`, { cookie });
    assert.equal(current.body.content, published);
  });

  it('reports a valid draft as valid', async () => {
    const res = await call(server.url, `/api/ui/rules/${id}?draft=true`, {
      cookie,
      method: 'PUT',
      rawBody: 'rules:\n  - id: draft-ok\n',
    });
    assert.deepEqual(res.body.validation, { ok: true, warnings: [] });
  });

  it('discards a draft, and answers 404 when there is none', async () => {
    assert.deepEqual((await call(server.url, `/api/ui/rules/${id}?draft=true`, { cookie, method: 'DELETE' })).body, {
      ok: true,
    });
    assert.equal(fs.existsSync(draftFile()), false);
    assert.equal(await hasDraft(), false);
    assert.equal((await call(server.url, `/api/ui/rules/${id}?draft=true`, { cookie })).status, 404);
    assert.equal((await call(server.url, `/api/ui/rules/${id}?draft=true`, { cookie, method: 'DELETE' })).status, 404);
    assert.ok(fs.existsSync(path.join(server.rulesDir, 'inbox.yml')), 'discarding a draft keeps the file');
  });

  it('publishing with a normal PUT removes the draft', async () => {
    const pkgId = b64('finance/receipts.yml');
    await call(server.url, `/api/ui/rules/${pkgId}?draft=true`, { cookie, method: 'PUT', rawBody: 'rules: []\n' });
    assert.ok(fs.existsSync(path.join(server.dataDir, 'drafts', 'finance', 'receipts.yml')));
    const saved = await call(server.url, `/api/ui/rules/${pkgId}`, {
      cookie,
      method: 'PUT',
      rawBody: 'rules:\n  - id: published-receipt\n',
    });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    assert.equal(fs.existsSync(path.join(server.dataDir, 'drafts', 'finance', 'receipts.yml')), false);
    assert.equal(
      fs.readFileSync(path.join(server.rulesDir, 'finance', 'receipts.yml'), 'utf8'),
      'rules:\n  - id: published-receipt\n',
    );
  });

  it('a draft of the published text is no draft: an autosave arriving after its publish leaves none', async () => {
    const text = 'rules:\n  - id: published-then-autosaved\n';
    await call(server.url, `/api/ui/rules/${id}?draft=true`, { cookie, method: 'PUT', rawBody: 'rules: []\n' });
    assert.equal(await hasDraft(), true);
    assert.equal((await call(server.url, `/api/ui/rules/${id}`, { cookie, method: 'PUT', rawBody: text })).status, 200);
    const late = await call(server.url, `/api/ui/rules/${id}?draft=true`, { cookie, method: 'PUT', rawBody: text });
    assert.equal(late.status, 200);
    assert.deepEqual(late.body.validation, { ok: true, warnings: [] });
    assert.equal(await hasDraft(), false);
    assert.equal(fs.existsSync(draftFile()), false);
    // Text that differs from the published file is kept as a draft, as before.
    await call(server.url, `/api/ui/rules/${id}?draft=true`, { cookie, method: 'PUT', rawBody: `${text}# more\n` });
    assert.equal(await hasDraft(), true);
  });

  it('a failed publish keeps the draft', async () => {
    await call(server.url, `/api/ui/rules/${id}?draft=true`, { cookie, method: 'PUT', rawBody: 'rules: [' });
    const res = await call(server.url, `/api/ui/rules/${id}`, { cookie, method: 'PUT', rawBody: 'rules: [' });
    assert.equal(res.status, 422);
    assert.equal(await hasDraft(), true);
  });

  it('deleting a file deletes its draft', async () => {
    const created = await call(server.url, '/api/ui/rules', { cookie, body: { filename: 'scratch.yml' } });
    const scratch = created.body.id as string;
    await call(server.url, `/api/ui/rules/${scratch}?draft=true`, { cookie, method: 'PUT', rawBody: 'rules: []\n' });
    assert.ok(fs.existsSync(path.join(server.dataDir, 'drafts', 'scratch.yml')));
    await call(server.url, `/api/ui/rules/${scratch}`, { cookie, method: 'DELETE' });
    assert.equal(fs.existsSync(path.join(server.dataDir, 'drafts', 'scratch.yml')), false);
  });
});

describe('_vars.yml', () => {
  let server: TestServer;
  let cookie: string;
  const globalId = b64('_vars.yml');
  const financeId = b64('finance/_vars.yml');
  const preview = (id: string, content: string) =>
    call(server.url, `/api/ui/rules/${id}/preview`, { cookie, method: 'POST', rawBody: content });

  before(async () => {
    server = await startTestServer({ SVC_VAR_COMPANY: 'Berger Consulting' }, {}, WITH_EXAMPLES);
    cookie = await login(server.url);
  });
  after(() => server.close());

  it('previews rendered vars: now, SVC_VAR_* env and earlier vars', async () => {
    const res = await preview(
      globalId,
      "company: '{{ env.SVC_VAR_COMPANY }}'\nyear: \"{{ now | date: '%Y' }}\"\nlabel: '{{ company }} {{ year }}'\ncount: 3\n",
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.ok, true);
    const year = String(new Date().getUTCFullYear());
    assert.deepEqual(YAML.parse(String(res.body.result)), {
      company: 'Berger Consulting',
      year,
      label: `Berger Consulting ${year}`,
      count: 3,
    });
  });

  it('renders a package vars file over the global vars', async () => {
    const res = await preview(financeId, "where: '{{ vars.processed_tag }} in finance'\n");
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(YAML.parse(String(res.body.result)), { where: 'rules-processed in finance' });
  });

  it('answers {ok:false, error} for a template error, and 400 for a file that is not _vars.yml', async () => {
    const bad = await preview(globalId, "a: '{{ nothing_here }}'\n");
    assert.equal(bad.status, 422);
    assert.equal(bad.body.ok, false);
    assert.match(String(bad.body.error), /^line 1, column 4: .*nothing_here/);
    const env = await preview(globalId, "secret: '{{ env.SVC_ADMIN_PASSWORD }}'\n");
    assert.equal(env.status, 422, 'only SVC_VAR_* variables are visible');
    const notVars = await preview(b64('inbox.yml'), 'a: 1\n');
    assert.equal(notVars.status, 400);
    assert.match(String(notVars.body.error), /_vars\.yml/);
  });

  it('gives loaded rules the global vars overridden by their package vars', async () => {
    const saved = await call(server.url, `/api/ui/rules/${financeId}`, {
      cookie,
      method: 'PUT',
      rawBody:
        'invoice_type: Rechnung\nreceipt_type: Quittung\nfinance_path: Finanzen\nprocessed_tag: finance-processed\n',
    });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    const listed = await call<{ files: Array<{ path: string; package: string | null; rules: string[] }> }>(
      server.url,
      '/api/ui/rules',
      { cookie },
    );
    const invoices = listed.body.files.find((f) => f.rules.includes('invoice-de'));
    assert.equal(invoices?.path, 'finance/invoices.yml');
    assert.equal(invoices?.package, 'finance');
    // What a rule's templates see, read from a dry run: one probe rule in the package, one outside it.
    const probe = (id: string) =>
      `rules:\n  - id: ${id}\n    when: { title: { contains: "" } }\n    actions:\n      - set_title: "{{ vars.processed_tag }} {{ vars.inbox_tag }}"\n`;
    const titleSeenBy = async (filename: string, id: string) => {
      const created = await call(server.url, '/api/ui/rules', { cookie, body: { filename } });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const put = await call(server.url, `/api/ui/rules/${String(created.body.id)}`, {
        cookie,
        method: 'PUT',
        rawBody: probe(id),
      });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      const run = await call<{ traces: Array<{ changes: { title?: { to: string } } }> }>(
        server.url,
        `/api/run?document=1&rule_id=${id}&dry_run=true`,
        { method: 'POST', token: API_TOKEN },
      );
      assert.equal(run.status, 200, JSON.stringify(run.body));
      await call(server.url, `/api/ui/rules/${String(created.body.id)}`, { cookie, method: 'DELETE' });
      return run.body.traces[0]?.changes.title?.to;
    };
    assert.equal(await titleSeenBy('finance/vars-probe.yml', 'finance-probe'), 'finance-processed Posteingang');
    assert.equal(await titleSeenBy('vars-probe.yml', 'global-probe'), 'rules-processed Posteingang');
  });

  it('refuses to save a vars file whose templates fail, keeping the old one', async () => {
    const before = fs.readFileSync(path.join(server.rulesDir, '_vars.yml'), 'utf8');
    const res = await call(server.url, `/api/ui/rules/${globalId}`, {
      cookie,
      method: 'PUT',
      rawBody: "x: '{{ 1 | no_such_filter }}'\n",
    });
    assert.equal(res.status, 422);
    assert.equal(fs.readFileSync(path.join(server.rulesDir, '_vars.yml'), 'utf8'), before);
  });
});
