import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, login, startTestServer, type TestServer, WITH_EXAMPLES } from '../helpers/test-server.js';
import { ALIAS_BOMB } from '../unit/rules/alias-bomb.js';

const GOOD = 'rules:\n  - id: kept-rule\n    actions:\n      - add_tags: [Steuer]\n';

describe('rule file validation on save', () => {
  let server: TestServer;
  let cookie: string;
  let id: string;
  const file = () => path.join(server.rulesDir, 'checked.yml');
  const put = (content: string, target = id) =>
    call(server.url, `/api/ui/rules/${target}`, { cookie, method: 'PUT', rawBody: content });
  const loaded = async () =>
    (await call<{ loaded: Record<string, string | null> }>(server.url, '/api/ui/rules', { cookie })).body.loaded;

  before(async () => {
    server = await startTestServer({}, {}, WITH_EXAMPLES);
    cookie = await login(server.url);
    id = (await call(server.url, '/api/ui/rules', { cookie, body: { filename: 'checked.yml' } })).body.id as string;
    assert.equal((await put(GOOD)).status, 200);
  });
  after(() => server.close());

  /** Each failing save answers 422 with line and column, and leaves the file and the loaded rules alone. */
  async function assertRejected(content: string, message: RegExp, line?: number, column?: number) {
    const res = await put(content);
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.equal(res.body.ok, false);
    assert.match(String(res.body.error), message);
    assert.match(String(res.body.error), /^line \d+, column \d+: /);
    if (line !== undefined) assert.equal(res.body.line, line);
    if (column !== undefined) assert.equal(res.body.column, column);
    assert.equal(fs.readFileSync(file(), 'utf8'), GOOD, 'the file on disk is unchanged');
    assert.ok('kept-rule' in (await loaded()), 'the loaded rules are unchanged');
  }

  it('reports YAML syntax errors', async () => {
    await assertRejected('rules:\n  - id: a\n    when: [unclosed\n', /YAML syntax error/);
  });

  it('rejects an alias bomb with an error instead of expanding it', async () => {
    await assertRejected(ALIAS_BOMB, /alias bomb/, 2);
  });

  it('reports schema errors at the offending key', async () => {
    await assertRejected('rules:\n  - id: a\n    acions: []\n', /unknown key "acions"/, 3, 5);
  });

  it('rejects a regex that does not compile, or needs backtracking', async () => {
    await assertRejected(
      "rules:\n  - id: a\n    when: { content: { matches: '(unclosed' } }\n",
      /rule "a".*regular expression/,
      3,
    );
    await assertRejected("rules:\n  - id: a\n    when: { content: { matches: '(a+)+\\1' } }\n", /backreference/, 3);
  });

  it('rejects a counted repetition too large to stay fast on long documents', async () => {
    await assertRejected(
      "rules:\n  - id: a\n    when: { content: { matches: '(\\w+\\s?){1,500}$' } }\n",
      /repetition bound \{1,500\} is larger than 100.*use \+ or \*/,
      3,
    );
  });

  it('rejects a template that does not parse', async () => {
    await assertRejected(
      'rules:\n  - id: a\n    actions:\n      - set_title: "{{ doc.title | }"\n',
      /rule "a".*template/,
      4,
    );
  });

  it('rejects a template naming a variable that cannot exist, at its line and column', async () => {
    await assertRejected(
      'rules:\n  - id: a\n    extract: { total: { regex: "(\\\\d+)" } }\n    actions:\n      - set_title: "{{ totl }}"\n',
      /rule "a": template names "totl".*did you mean "total"/,
      5,
      24, // the name inside the braces, not the value's start
    );
  });

  it('saves a condition whose operand looks like a template, with a warning that it is compared as text', async () => {
    const res = await put('rules:\n  - id: a\n    when: { title: { contains: "{{ vars.x }}" } }\n');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.match(
      JSON.stringify(res.body.warnings),
      /line 3, column 32: the title condition compares with the literal text .*check:/,
    );
    assert.equal((await put(GOOD)).status, 200);
  });

  it('rejects an id used twice in one file or already used in another file', async () => {
    await assertRejected('rules:\n  - id: twice\n  - id: twice\n', /used twice/, 3, 9);
    await assertRejected('rules:\n  - id: invoice-de\n', /already used in finance\/invoices\.yml/, 2, 9);
  });

  it('rejects names the dms does not know, unless the action may create them', async () => {
    await assertRejected(
      'rules:\n  - id: a\n    actions:\n      - set_document_type: Gutschrift\n',
      /no document type "Gutschrift".*create_missing/,
      4,
      28,
    );
    await assertRejected(
      'rules:\n  - id: a\n    actions:\n      - set_storage_path: Nirgendwo\n',
      /no storage path "Nirgendwo"/,
      4,
    );
    await assertRejected(
      'rules:\n  - id: a\n    when: { custom_fields.Unbekannt: { exists: true } }\n',
      /no custom field "Unbekannt"/,
      3,
    );
    await assertRejected(
      'rules:\n  - id: a\n    actions:\n      - set_custom_fields: { Zahlungsstatus: vielleicht }\n',
      /not an option of the select field/,
      4,
    );
    const created = await put(
      'rules:\n  - id: creates\n    actions:\n      - set_document_type: Gutschrift\n        create_missing: true\n',
    );
    assert.equal(created.status, 200, JSON.stringify(created.body));
    // A condition may name the tag the same rule creates: the dms has it only after the first run.
    const guarded = await put(
      'rules:\n  - id: once\n    when: { not: { tags: { any: [erledigt-neu] } } }\n    actions:\n      - add_tags: [erledigt-neu]\n        create_missing: true\n',
    );
    assert.equal(guarded.status, 200, JSON.stringify(guarded.body));
    assert.equal((await put(GOOD)).status, 200);
    await assertRejected(
      'rules:\n  - id: a\n    when: { tags: { any: [erledigt-neu] } }\n',
      /no tag "erledigt-neu"/,
      3,
    );
    assert.equal((await put(GOOD)).status, 200);
  });

  it('rejects a rule whose own tests fail, pointing at the failing expectation', async () => {
    const failing = [
      'rules:',
      '  - id: a',
      '    when: { content: { contains: Rechnung } }',
      '    actions:',
      '      - set_title: Rechnung',
      '    tests:',
      '      - document: { content: "Rechnung 1" }',
      '        expect: { matched: true, changes: { title: Quittung } }',
      '',
    ].join('\n');
    await assertRejected(failing, /failed its test.*title: expected "Quittung", got "Rechnung"/, 8);
  });

  it('reports every problem of the file at once, each with the range to underline', async () => {
    const text = [
      'rules:',
      '  - id: a',
      '    when: { custom_fields.Unbekannt: { exists: true } }',
      '    actions:',
      '      - set_title: "Rechnung {{ doc.titel }}"',
      '  - id: b',
      '    acions: []',
      '  - id: c',
      '    when: { content: { matches: "(" } }',
      '',
    ].join('\n');
    // The rule with a schema problem (an unknown key) is left out of the later stages; the other rules are not.
    const schema = await put(text);
    assert.equal(schema.status, 422);
    const schemaProblems = schema.body.problems as Array<Record<string, unknown>>;
    assert.deepEqual(
      schemaProblems.map((p) => p.line),
      [3, 5, 7, 9],
    );
    assert.match(String(schemaProblems[2].message), /^rule "b": unknown key "acions"; did you mean "actions"\?$/);
    assert.deepEqual(
      [schemaProblems[2].line, schemaProblems[2].column, schemaProblems[2].end_line, schemaProblems[2].end_column],
      [7, 5, 7, 11],
    );
    const res = await put(text.replace('    acions: []', '    actions: []'));
    assert.equal(res.status, 422, JSON.stringify(res.body));
    const problems = res.body.problems as Array<{ message: string; line: number; column: number; end_column: number }>;
    assert.deepEqual(
      problems.map((p) => [p.line, p.column, p.end_column]),
      [
        [3, 13, 36], // the key custom_fields.Unbekannt, not its value
        [5, 33, 42], // doc.titel inside the braces
        [9, 33, 36], // the regex value
      ],
      JSON.stringify(problems),
    );
    assert.match(problems[0].message, /no custom field "Unbekannt"/);
    assert.match(problems[1].message, /template names "doc.titel"/);
    assert.match(problems[2].message, /regular expression/);
    assert.match(String(res.body.error), /^line 3, column 13: .*\(and 2 more problems in this file\)$/);
    assert.equal(fs.readFileSync(file(), 'utf8'), GOOD, 'the file on disk is unchanged');

    // A draft save reports the same list without refusing the draft.
    const draft = await call(server.url, `/api/ui/rules/${id}?draft=true`, {
      cookie,
      method: 'PUT',
      rawBody: text.replace('    acions: []', '    actions: []'),
    });
    assert.equal(draft.status, 200);
    const validation = draft.body.validation as { ok: boolean; problems: unknown[] };
    assert.equal(validation.ok, false);
    assert.equal(validation.problems.length, 3);
    await call(server.url, `/api/ui/rules/${id}?draft=true`, { cookie, method: 'DELETE' });
  });

  it('answers 413 for a body of 512 KB + 1 byte, and accepts exactly 512 KB', async () => {
    const limit = 512 * 1024;
    const tooBig = `# ${'x'.repeat(limit - 3)}\n`.padEnd(limit + 1, 'x');
    assert.equal(Buffer.byteLength(tooBig), limit + 1);
    const res = await put(tooBig);
    assert.equal(res.status, 413);
    assert.equal(res.body.ok, false);
    assert.match(String(res.body.error), /512 KB/);
    assert.equal(fs.readFileSync(file(), 'utf8'), GOOD);
    const draft = await call(server.url, `/api/ui/rules/${id}?draft=true`, { cookie, method: 'PUT', rawBody: tooBig });
    assert.equal(draft.status, 413);

    const exact = `${GOOD}# ${'x'.repeat(limit - GOOD.length - 3)}\n`;
    assert.equal(Buffer.byteLength(exact), limit);
    assert.equal((await put(exact)).status, 200);
    assert.equal((await put(GOOD)).status, 200);
  });

  it('accepts an empty file and a bare "rules:" as files without rules', async () => {
    assert.equal((await put('')).status, 200);
    assert.equal((await put('rules:\n')).status, 200);
    assert.ok(!('kept-rule' in (await loaded())));
    assert.equal((await put(GOOD)).status, 200);
  });
});
