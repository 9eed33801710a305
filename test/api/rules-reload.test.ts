import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { API_TOKEN, call, login, startTestServer, type TestServer, WITH_EXAMPLES } from '../helpers/test-server.js';

interface ListBody {
  files: Array<{
    id: string;
    path: string;
    error: { message: string; line: number | null; column: number | null } | null;
    rules: string[];
  }>;
  loaded: Record<string, string | null>;
}

const b64 = (s: string) => Buffer.from(s).toString('base64url');
const rule = (id: string, description = id) => `rules:\n  - id: ${id}\n    description: ${description}\n`;

/**
 * Polls until `check` passes; the deadline only bounds a failing test, nothing is asserted about speed. It is a
 * minute: on a machine busy with other work a reload of the example rules alone can take seconds.
 */
async function eventually(check: () => void | Promise<void>, deadlineMs = 60_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > end) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

describe('reloading rule files', () => {
  let server: TestServer;
  let cookie: string;
  const list = async () => (await call<ListBody>(server.url, '/api/ui/rules', { cookie })).body;
  const write = (name: string, content: string) => fs.writeFileSync(path.join(server.rulesDir, name), content);

  before(async () => {
    server = await startTestServer({}, {}, WITH_EXAMPLES);
    cookie = await login(server.url);
  });
  after(() => server.close());

  it('picks up a file added, edited and removed by another program', async () => {
    write('external.yml', rule('external-one', 'first'));
    await eventually(async () => assert.equal((await list()).loaded['external-one'], 'first'));
    write('external.yml', rule('external-one', 'second'));
    await eventually(async () => assert.equal((await list()).loaded['external-one'], 'second'));
    fs.rmSync(path.join(server.rulesDir, 'external.yml'));
    await eventually(async () => assert.ok(!('external-one' in (await list()).loaded)));
  });

  it('picks up files in a package folder created after start', async () => {
    fs.mkdirSync(path.join(server.rulesDir, 'later'));
    await eventually(() => assert.ok(fs.existsSync(path.join(server.rulesDir, 'later'))));
    // The watcher must have seen the new folder before a file inside it can be noticed.
    await eventually(async () => {
      write('later/pkg.yml', rule('package-rule'));
      assert.ok('package-rule' in (await list()).loaded);
    });
  });

  it('keeps the last good rules of a file broken on disk and shows its error', async () => {
    write('fragile.yml', rule('fragile-rule', 'good version'));
    await call(server.url, '/api/reload', { method: 'POST', token: API_TOKEN });
    assert.equal((await list()).loaded['fragile-rule'], 'good version');

    write('fragile.yml', 'rules:\n  - id: fragile-rule\n    when: [broken\n');
    const report = await call(server.url, '/api/reload', { method: 'POST', token: API_TOKEN });
    assert.equal(report.status, 200);
    assert.equal(report.body.ok, true);
    assert.ok((report.body.errors as Array<{ path: string }>).some((e) => e.path === 'fragile.yml'));

    const body = await list();
    const entry = body.files.find((f) => f.path === 'fragile.yml')!;
    assert.match(entry.error!.message, /^line \d+, column \d+: YAML syntax error/);
    assert.equal(typeof entry.error!.line, 'number');
    assert.equal(typeof entry.error!.column, 'number');
    assert.equal(body.loaded['fragile-rule'], 'good version', 'the last good rules stay loaded');
    assert.ok('inbox-done' in body.loaded, 'other files still load');

    write('fragile.yml', rule('fragile-rule', 'fixed'));
    await call(server.url, '/api/reload', { method: 'POST', cookie });
    const fixed = await list();
    assert.equal(fixed.files.find((f) => f.path === 'fragile.yml')!.error, null);
    assert.equal(fixed.loaded['fragile-rule'], 'fixed');
  });

  it('does not load a file that was never valid, and still loads the others', async () => {
    write('never-good.yml', 'rules:\n  - id: never-good\n    nonsense: true\n');
    await call(server.url, '/api/reload', { method: 'POST', cookie });
    const body = await list();
    const entry = body.files.find((f) => f.path === 'never-good.yml')!;
    assert.match(entry.error!.message, /unknown key "nonsense"/);
    assert.equal(entry.error!.line, 3);
    assert.deepEqual(entry.rules, []);
    assert.ok(!('never-good' in body.loaded));
    assert.ok('invoice-de' in body.loaded);
    fs.rmSync(path.join(server.rulesDir, 'never-good.yml'));
  });

  it('puts the later file in error when two files use one rule id', async () => {
    write('aaa-first.yml', rule('shared-id', 'from aaa'));
    write('zzz-second.yml', rule('shared-id', 'from zzz'));
    await call(server.url, '/api/reload', { method: 'POST', cookie });
    const body = await list();
    assert.equal(body.loaded['shared-id'], 'from aaa');
    assert.equal(body.files.find((f) => f.path === 'aaa-first.yml')!.error, null);
    assert.match(
      body.files.find((f) => f.path === 'zzz-second.yml')!.error!.message,
      /"shared-id" is already used in aaa-first\.yml/,
    );
    fs.rmSync(path.join(server.rulesDir, 'aaa-first.yml'));
    fs.rmSync(path.join(server.rulesDir, 'zzz-second.yml'));
  });

  it('serves loaded rules in file path order, then list order, disabled ones included', async () => {
    write('order.yml', 'rules:\n  - id: order-b\n  - id: order-a\n    enabled: false\n');
    await call(server.url, '/api/reload', { method: 'POST', cookie });
    // The loaded rules as the API serves them: `loaded` in load order, each file naming its rules.
    const body = await list();
    const fileOf = new Map(body.files.flatMap((f) => f.rules.map((id) => [id, f.path] as const)));
    const files = Object.keys(body.loaded).map((id) => fileOf.get(id) ?? '');
    assert.deepEqual(files, [...files].sort(), 'files in path order');
    const ids = Object.keys(body.loaded).filter((id) => fileOf.get(id) === 'order.yml');
    assert.deepEqual(ids, ['order-b', 'order-a']);
    const run = await call<{ traces: Array<{ rule_id: string; status: string; error: string | null }> }>(
      server.url,
      '/api/run?document=1&rule_id=order-a&dry_run=true',
      { method: 'POST', token: API_TOKEN },
    );
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.match(run.body.traces[0]?.error ?? '', /disabled/, 'loaded, and disabled');
    fs.rmSync(path.join(server.rulesDir, 'order.yml'));
  });

  it('ends concurrent saves of one file with one complete file', async () => {
    const created = await call(server.url, '/api/ui/rules', { cookie, body: { filename: 'contended.yml' } });
    const id = created.body.id as string;
    // Big enough that a torn write would be visible; each version is valid on its own.
    const versions = Array.from(
      { length: 12 },
      (_, i) => `${rule('contended', `version ${i}`)}# ${String(i).repeat(40_000)}\n`,
    );
    const results = await Promise.all(
      versions.map((content) => call(server.url, `/api/ui/rules/${id}`, { cookie, method: 'PUT', rawBody: content })),
    );
    assert.deepEqual(
      results.map((r) => r.status),
      versions.map(() => 200),
    );
    const onDisk = fs.readFileSync(path.join(server.rulesDir, 'contended.yml'), 'utf8');
    const winner = versions.indexOf(onDisk);
    assert.ok(winner >= 0, 'the file is exactly one of the saved versions');
    await call(server.url, '/api/reload', { method: 'POST', cookie });
    assert.equal((await list()).loaded.contended, `version ${winner}`);
    const leftovers = fs.readdirSync(server.rulesDir).filter((f) => f.endsWith('.tmp'));
    assert.deepEqual(leftovers, [], 'no temp files are left behind');
    assert.equal(id, b64('contended.yml'));
  });

  it('creates one file when the same name is created concurrently', async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, () => call(server.url, '/api/ui/rules', { cookie, body: { filename: 'race.yml' } })),
    );
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 409, 409, 409, 409]);
  });
});
