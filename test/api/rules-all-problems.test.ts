import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Trace } from '../../server/engine/model.js';
import type { FileProblem } from '../../server/app-errors.js';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import { API_TOKEN, call, login, startTestServer, type TestServer } from '../helpers/test-server.js';

const GOOD = 'rules:\n  - id: note-on-arrival\n    on: [added]\n    actions:\n      - add_note: angekommen\n';
const TWO_MISTAKES = [
  'rules:',
  '  - id: first',
  '    whenn: { title: { contains: Rechnung } }',
  '    actions:',
  '      - set_title: Rechnung',
  '  - id: second',
  '    actions:',
  '      - add_tags: [Stuer]',
  '    tests:',
  '      - name: Rechnung #1',
  '        document: { title: x }',
  '        expect: { matched: true }',
].join('\n');

describe('a rule file with mistakes of different kinds in different rules', () => {
  let sim: Simulator;
  let server: TestServer;
  let cookie: string;
  let id: string;

  before(async () => {
    sim = await startSimulator();
    server = await startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token });
    cookie = await login(server.url);
    id = (await call(server.url, '/api/ui/rules', { cookie, body: { filename: 'mixed.yml' } })).body.id as string;
    assert.equal((await call(server.url, `/api/ui/rules/${id}`, { cookie, method: 'PUT', rawBody: GOOD })).status, 200);
  });
  after(async () => {
    await server?.close();
    await sim?.close();
  });

  it('refuses a save naming every problem in file order, the first as the error', async () => {
    const res = await call<{ error: string; line: number; column: number; problems: FileProblem[] }>(
      server.url,
      `/api/ui/rules/${id}`,
      { cookie, method: 'PUT', rawBody: TWO_MISTAKES },
    );
    assert.equal(res.status, 422, JSON.stringify(res.body));
    const problems = res.body.problems;
    assert.deepEqual(
      problems.map((p) => [p.line, p.column]),
      [
        [3, 5],
        [8, 20],
      ],
    );
    assert.match(problems[0].message, /unknown key "whenn"; did you mean "when"\?/);
    assert.match(problems[1].message, /the dms has no tag "Stuer".*Did you mean "Steuer"\?/);
    assert.equal(res.body.error, `line 3, column 5: ${problems[0].message} (and 1 more problem in this file)`);
    assert.deepEqual([res.body.line, res.body.column], [3, 5]);
    assert.equal(fs.readFileSync(path.join(server.rulesDir, 'mixed.yml'), 'utf8'), GOOD, 'the file is unchanged');
  });

  it("answers a check of the editor text with the same problems and its warnings, and runs the sound rule's tests", async () => {
    const res = await call<{
      validation: { ok: boolean; problems: FileProblem[]; warnings: string[] };
      tests: Array<{ rule_id: string; ok: boolean }>;
    }>(server.url, `/api/ui/rules/${id}/check`, { cookie, method: 'POST', rawBody: TWO_MISTAKES });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.validation.ok, false);
    assert.deepEqual(
      res.body.validation.problems.map((p) => p.line),
      [3, 8],
    );
    assert.deepEqual(res.body.validation.warnings, [
      'line 10, column 24: the test name stops before "#1", which YAML reads as a comment; quote the name; # starts a comment: name: "Rechnung #1"',
    ]);
    assert.deepEqual(
      res.body.tests.map((t) => [t.rule_id, t.ok]),
      [['second', true]],
    );
  });

  it('says why a manual dry run of an on: [added] rule left the document alone', async () => {
    const res = await call<{ traces: Trace[] }>(server.url, '/api/run?document=10', {
      method: 'POST',
      token: API_TOKEN,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const trace = res.body.traces.find((t) => t.rule_id === 'note-on-arrival');
    assert.ok(trace, JSON.stringify(res.body));
    assert.equal(trace.status, 'skipped');
    assert.match(
      trace.error ?? '',
      /on: \[added\] limits it to documents as they are added; to try it on this document, run this rule alone/,
    );
  });
});
