import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { RULE_FILE_SCHEMA } from '../../server/engine/rule-schema.js';
import { call, login, startTestServer, type TestServer, WITH_EXAMPLES } from '../helpers/test-server.js';

interface SchemaBody {
  schema: typeof RULE_FILE_SCHEMA;
  vocabulary: {
    keys: { rule: string[]; extraction: string[] };
    fields: string[];
    operators: string[];
    combinators: string[];
    actions: string[];
    template_filters: string[];
    vars: string[];
    dms: {
      tags: string[];
      correspondents: string[];
      document_types: string[];
      storage_paths: string[];
      custom_fields: Array<{ name: string; data_type: string; options?: string[] }>;
      users: string[];
      groups: string[];
      error: string | null;
    };
  };
}

describe('GET /api/ui/schema', () => {
  let server: TestServer;
  let cookie: string;

  before(async () => {
    server = await startTestServer({}, {}, WITH_EXAMPLES);
    cookie = await login(server.url);
  });
  after(() => server.close());

  it('returns the rule file schema used for validation and the editor vocabulary', async () => {
    const res = await call<SchemaBody>(server.url, '/api/ui/schema', { cookie });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.schema, JSON.parse(JSON.stringify(RULE_FILE_SCHEMA)));
    const v = res.body.vocabulary;
    assert.ok(v.keys.rule.includes('when') && v.keys.rule.includes('tests'));
    assert.ok(v.keys.extraction.includes('regex'));
    assert.ok(v.fields.includes('content') && v.fields.includes('custom_fields.Betrag'));
    assert.ok(v.operators.includes('matches') && v.operators.includes('gte'));
    assert.deepEqual(v.combinators, ['all', 'any', 'not']);
    assert.ok(v.actions.includes('set_custom_fields'));
    assert.ok(v.template_filters.includes('date') && v.template_filters.includes('money'));
  });

  it('names the vars a rule may use, from every loaded _vars.yml (the shipped examples here)', async () => {
    const { vars } = (await call<SchemaBody>(server.url, '/api/ui/schema', { cookie })).body.vocabulary;
    assert.ok(
      vars.includes('inbox_tag') && vars.includes('processed_tag') && vars.includes('invoice_type'),
      vars.join(','),
    );
    assert.deepEqual(vars, [...vars].sort());
  });

  it("lists the dms's current names and custom field types", async () => {
    const { dms } = (await call<SchemaBody>(server.url, '/api/ui/schema', { cookie })).body.vocabulary;
    assert.equal(dms.error, null);
    assert.ok(dms.tags.includes('Posteingang'));
    assert.ok(dms.correspondents.includes('Stadtwerke München'));
    assert.ok(dms.document_types.includes('Rechnung'));
    assert.ok(dms.storage_paths.includes('Finanzen'));
    assert.ok(dms.users.includes('anna') && dms.groups.length > 0, JSON.stringify([dms.users, dms.groups]));
    assert.deepEqual(
      dms.custom_fields.find((f) => f.name === 'Betrag'),
      { name: 'Betrag', data_type: 'monetary' },
    );
    assert.deepEqual(
      dms.custom_fields.find((f) => f.name === 'Zahlungsstatus'),
      { name: 'Zahlungsstatus', data_type: 'select', options: ['offen', 'bezahlt', 'storniert'] },
    );
  });
});

describe('when the dms is unreachable', () => {
  let server: TestServer;
  let cookie: string;

  before(async () => {
    // A port that was free a moment ago: connections to it are refused.
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as net.AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    server = await startTestServer({ SVC_DMS_URL: `http://127.0.0.1:${port}` }, {}, WITH_EXAMPLES);
    cookie = await login(server.url);
  });
  after(() => server.close());

  it('still loads the rules, saves with a warning that names were not checked, and serves the schema', async () => {
    const list = await call<{ loaded: Record<string, unknown> }>(server.url, '/api/ui/rules', { cookie });
    assert.ok('invoice-de' in list.body.loaded);

    const created = await call(server.url, '/api/ui/rules', { cookie, body: { filename: 'offline.yml' } });
    const saved = await call(server.url, `/api/ui/rules/${created.body.id as string}`, {
      cookie,
      method: 'PUT',
      rawBody: 'rules:\n  - id: offline\n    actions:\n      - add_tags: [Unbekannt]\n',
    });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    assert.equal(saved.body.ok, true);
    const warnings = saved.body.warnings as string[];
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /could not be reached.*not checked/);

    const schema = await call<SchemaBody>(server.url, '/api/ui/schema', { cookie });
    assert.equal(schema.status, 200);
    assert.match(String(schema.body.vocabulary.dms.error), /could not be reached/);
    assert.deepEqual(schema.body.vocabulary.dms.tags, []);
    assert.ok(schema.body.vocabulary.actions.length > 0);
  });
});
