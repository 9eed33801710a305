import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, login, startTestServer, tempDir, type TestServer } from '../helpers/test-server.js';

// Eight heavy `tests:` examples in one file: a counted repetition over one long run of
// word characters takes RE2 seconds per 100 KB. One 300 KB document, shared through a YAML anchor.
function heavyRules(id: string, count = 8): string {
  const tests = Array.from(
    { length: count },
    (_, i) =>
      `      - name: heavy ${i + 1}\n        document: ${i === 0 ? '&big ' : '*big'}${i === 0 ? `{ title: Scan, content: "${'a'.repeat(300_000)}." }` : ''}\n        expect: { matched: true }`,
  );
  return `rules:
  - id: ${id}
    extract:
      tail: { regex: '(\\w+\\s?){1,100}$' }
    actions:
      - set_title: "{{ tail }}"
    tests:
${tests.join('\n')}
`;
}

const QUICK = `rules:
  - id: quick
    when: { title: { contains: Invoice } }
    actions:
      - add_tags: [Finance]
    tests:
      - name: an invoice
        document: { title: Invoice 7 }
        expect: { matched: true, changes: { tags: [Finance] } }
      - name: a letter
        document: { title: Letter }
        expect: { matched: false }
`;

interface FileEntry {
  id: string;
  path: string;
  error: { message: string } | null;
}

/** Calls health (every 20 ms) until `work` settles; returns how many health answers arrived before it did. */
async function healthAnswersDuring(base: string, work: Promise<unknown>): Promise<number> {
  let settled = false;
  void work.finally(() => (settled = true));
  let answered = 0;
  while (!settled) {
    const res = await call(base, '/api/health');
    assert.equal(res.status, 200);
    if (!settled) answered++;
    // A pause between polls leaves the CPU to the worker; a poll still lands inside every stopped example's budget.
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return answered;
}

describe("rules' tests run off the main thread within the evaluation budget", () => {
  let server: TestServer;
  let cookie: string;
  before(async () => {
    const rulesDir = tempDir('dms-rules-heavy-tests-');
    fs.writeFileSync(path.join(rulesDir, 'heavy.yml'), heavyRules('heavy-at-start'));
    fs.writeFileSync(path.join(rulesDir, 'quick.yml'), QUICK);
    server = await startTestServer({ SVC_EVAL_WORKERS: '1', SVC_EVAL_BUDGET_MS: '200' }, { rulesDir });
    cookie = await login(server.url);
  });
  after(() => server.close());

  it('at load: each heavy example is stopped at the budget and the file is listed with a clear error; other files load', async () => {
    const list = await call<{ files: FileEntry[]; loaded: Record<string, string | null> }>(
      server.url,
      '/api/ui/rules',
      { cookie },
    );
    const heavy = list.body.files.find((f) => f.path === 'heavy.yml');
    assert.match(
      String(heavy?.error?.message),
      /rule "heavy-at-start" failed its test heavy 1: took longer than 200 ms \(the evaluation time budget, SVC_EVAL_BUDGET_MS\) and was stopped/,
    );
    assert.ok(!('heavy-at-start' in list.body.loaded));
    assert.ok('quick' in list.body.loaded, 'the quick file loaded and passed its tests in the worker');
    assert.ok(
      server.logs.some((l) => /a test of rule heavy-at-start exceeded the evaluation budget of 200 ms/.test(l)),
    );
  });

  it('on save: health answers while the heavy examples run, and the save is refused naming the test', async () => {
    const id = (await call(server.url, '/api/ui/rules', { cookie, body: { filename: 'saved.yml' } })).body.id as string;
    const save = call(server.url, `/api/ui/rules/${id}`, { cookie, method: 'PUT', rawBody: heavyRules('heavy-saved') });
    const answers = await healthAnswersDuring(server.url, save);
    const res = await save;
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.match(String(res.body.error), /rule "heavy-saved" failed its test heavy 1: took longer than 200 ms/);
    assert.ok(answers > 0, 'health answered while the save ran the tests');
  });

  it('in the editor: every example is reported, each stopped at the budget, and the service stays answering', async () => {
    const id = (await call<{ files: FileEntry[] }>(server.url, '/api/ui/rules', { cookie })).body.files.find(
      (f) => f.path === 'quick.yml',
    )!.id;
    const check = call<{ tests: Array<{ name: string; ok: boolean; message: string; line: number }> }>(
      server.url,
      `/api/ui/rules/${id}/check`,
      {
        cookie,
        method: 'POST',
        // Three, not eight: each stopped example costs a fresh worker, which under tsx takes a while to start.
        rawBody: heavyRules('quick', 3),
      },
    );
    const answers = await healthAnswersDuring(server.url, check);
    const res = await check;
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.tests.map((t) => [t.name, t.ok]),
      Array.from({ length: 3 }, (_, i) => [`heavy ${i + 1}`, false]),
    );
    assert.ok(res.body.tests.every((t) => /took longer than 200 ms/.test(t.message)));
    assert.ok(answers > 0);
    const quick = await call<{ tests: Array<{ name: string; ok: boolean }> }>(server.url, `/api/ui/rules/${id}/check`, {
      cookie,
      method: 'POST',
      rawBody: QUICK,
    });
    assert.deepEqual(
      quick.body.tests.map((t) => [t.name, t.ok]),
      [
        ['an invoice', true],
        ['a letter', true],
      ],
      'a fresh worker took over after the stopped ones',
    );
  });
});
