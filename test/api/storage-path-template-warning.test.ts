import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, login, startTestServer, type TestServer } from '../helpers/test-server.js';

describe('a rule that creates a storage path with a Paperless path template', () => {
  let server: TestServer;
  let cookie: string;
  let id: string;
  const put = (content: string) => call(server.url, `/api/ui/rules/${id}`, { cookie, method: 'PUT', rawBody: content });
  const rule = (path: string) =>
    `rules:\n  - id: vendor-path\n    extract: { ref: { regex: 'Ref (\\\\S+)' } }\n    actions:\n      - set_storage_path: Lieferanten\n        create_missing: true\n        path: ${JSON.stringify(path)}\n`;

  before(async () => {
    server = await startTestServer();
    cookie = await login(server.url);
    id = (await call(server.url, '/api/ui/rules', { cookie, body: { filename: 'paths.yml' } })).body.id as string;
  });
  after(() => server.close());

  it('saves with a warning at path naming what Paperless renders, keeps literal and will refuse', async () => {
    const res = await put(rule('Vendor/{{ ref }}/{{ created_year }}/{{ title }}'));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const warnings = (res.body.warnings as string[]).join('\n');
    assert.match(warnings, /^line 7, column 15: the storage path this action creates has the path template/m);
    assert.match(warnings, /Paperless fills in \{\{ created_year \}\}, \{\{ title \}\}/);
    assert.match(warnings, /keeps "Vendor\/", "\/", "\/" as written/);
    assert.match(
      warnings,
      /Paperless cannot render \{\{ ref \}\} and will refuse to create this storage path \("Invalid variable detected\."\): "ref" is no Paperless variable/,
    );
  });

  it("names the rule's Liquid filters, which Paperless's Jinja does not take", async () => {
    const res = await put(rule("{{ created | date: '%Y' }}/{{ title }}"));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.match(
      (res.body.warnings as string[]).join('\n'),
      /"date: …" is Liquid's filter form; Paperless's Jinja writes date\(…\)/,
    );
  });

  it('warns without a refusal for a template of Paperless variables, and not at all for a plain path', async () => {
    const good = await put(rule("{{ correspondent }}/{{ custom_fields | get_cf_value('Ref', 'none') }}/{{ title }}"));
    const text = (good.body.warnings as string[]).join('\n');
    assert.match(text, /Paperless fills in \{\{ correspondent \}\}/);
    assert.doesNotMatch(text, /refuse/);
    const plain = await put(rule('Lieferanten/alle'));
    assert.doesNotMatch((plain.body.warnings as string[]).join('\n'), /storage path/);
  });
});
