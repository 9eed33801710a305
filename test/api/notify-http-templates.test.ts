import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import { call, login, startTestServer, tempDir, type TestServer } from '../helpers/test-server.js';
import { runRule, startReceiver } from './support/notify-kit.js';

const RULES = `
rules:
  - id: hook-json
    on: [manual]
    actions:
      - notify:
          to: hook
          when: always
          body: '{"doc": {{ doc.id }}, "title": {{ doc.title | json }}, "event": "checked"}'
          headers: { X-Doc: "{{ doc.id }}", Priority: high }
  - id: ntfy-text
    on: [manual]
    actions:
      - notify: { to: ntfy, when: always, message: "Neu: {{ doc.title }}", headers: { Title: "Dokument {{ doc.id }}", Tags: warning } }
  - id: naive-json
    on: [manual]
    actions:
      - notify: { to: hook, when: always, body: '{"title": "{{ doc.title }}"}' }
  - id: header-from-content
    on: [manual]
    actions:
      - notify: { to: hook, when: always, message: "x", headers: { X-Content: "{{ doc.content }}" } }
`;

describe('notify to HTTP targets: body and headers from templates, only to targets of the settings', () => {
  let sim: Simulator;
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let cookie: string;
  let fileId: string;
  let doc: number;

  const run = (ruleId: string, dryRun?: boolean) => runRule(server, doc, ruleId, dryRun);
  const save = (yaml: string) => call(server.url, `/api/ui/rules/${fileId}`, { cookie, method: 'PUT', rawBody: yaml });

  before(async () => {
    receiver = await startReceiver();
    sim = await startSimulator();
    doc = sim.addDocument({ title: 'Rechnung "März"', content: 'Zeile 1\nZeile 2', tags: [] }).id;
    const rulesDir = tempDir('dms-rules-notify-http-rules-');
    fs.writeFileSync(path.join(rulesDir, 'hooks.yml'), RULES);
    const targets = {
      hook: { url: `${receiver.url}/hook`, headers: { Authorization: 'Bearer from-settings', Priority: 'low' } },
      ntfy: { url: `${receiver.url}/ntfy`, format: 'text' },
      mail: { smtp: 'smtp://127.0.0.1:1', from: 'a@example.org', to: ['b@example.org'] },
    };
    server = await startTestServer(
      { SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token, SVC_NOTIFY_TARGETS: JSON.stringify(targets) },
      { rulesDir },
    );
    cookie = await login(server.url);
    const files = (await call<{ files: Array<{ id: string; name: string }> }>(server.url, '/api/ui/rules', { cookie }))
      .body.files;
    fileId = files.find((f) => f.name === 'hooks.yml')?.id as string;
  });
  after(async () => {
    await server?.close();
    await sim?.close();
    await receiver?.close();
  });

  it("posts the rule's body and headers; the settings' headers stay unless the rule names them; the key is the service's", async () => {
    const dry = await run('hook-json', true);
    assert.equal(
      dry.actions[0].detail,
      `would send to hook: body "{\\"doc\\": ${doc}, \\"title\\": \\"Rechnung \\\\\\"März\\\\\\"\\", \\"event\\": \\"checked\\"}" headers X-Doc, Priority (when: always)`,
    );
    assert.equal(receiver.received.length, 0);
    const trace = await run('hook-json');
    assert.equal(trace.actions[0].status, 'applied', JSON.stringify(trace));
    const [post] = receiver.received.splice(0);
    assert.equal(post.path, '/hook');
    assert.deepEqual(JSON.parse(post.body), { doc, title: 'Rechnung "März"', event: 'checked' });
    assert.equal(post.headers['content-type'], 'application/json');
    assert.equal(post.headers['x-doc'], String(doc));
    assert.equal(post.headers.priority, 'high');
    assert.equal(post.headers.authorization, 'Bearer from-settings');
    assert.match(String(post.headers['idempotency-key']), new RegExp(`^dms-rules-${doc}-`));
  });

  it("a text target takes the rule's Title header instead of the notify title", async () => {
    await run('ntfy-text');
    const [post] = receiver.received.splice(0);
    assert.equal(post.path, '/ntfy');
    assert.equal(post.body, 'Neu: Rechnung "März"');
    assert.equal(post.headers.title, `Dokument ${doc}`);
    assert.equal(post.headers.tags, 'warning');
  });

  it('a body for a JSON target that is not JSON is not posted: the trace says how to quote the value', async () => {
    const trace = await run('naive-json');
    assert.equal(trace.status, 'error');
    assert.match(trace.actions[0].error ?? '', /the notify body is not JSON .*write values with \| json/);
    assert.equal(receiver.received.length, 0);
  });

  it('a header value with a line break is a rule error, never a second header', async () => {
    const trace = await run('header-from-content');
    assert.equal(trace.status, 'error');
    assert.match(trace.error ?? '', /notify header X-Content: the value has a line break/);
    assert.equal(receiver.received.length, 0);
  });

  it('refuses at save the headers a rule may not set, a body for an e-mail target, and a URL in the rule', async () => {
    const hookJson = `headers: { X-Doc: "{{ doc.id }}", Priority: high }`;
    const cases: Array<[string, RegExp]> = [
      [RULES.replace(hookJson, 'headers: { Host: evil.example }'), /a rule may not set Host: the service sets it/],
      [RULES.replace(hookJson, 'headers: { Content-Length: "5" }'), /a rule may not set Content-Length/],
      [RULES.replace(hookJson, 'headers: { idempotency-key: x }'), /a rule may not set idempotency-key/],
      [
        RULES.replace(hookJson, 'headers: { Authorization: "Bearer x" }'),
        /a rule may not set Authorization: credentials belong in the target's headers in the settings/,
      ],
      [RULES.replace(hookJson, 'headers: { "Bad Name": x }'), /"Bad Name" is not a valid HTTP header name/],
      [
        RULES.replace('to: hook\n          when: always', 'to: mail\n          when: always'),
        /notify target "mail" is an e-mail target; body and headers are for HTTP targets/,
      ],
      [
        RULES.replace('to: hook\n', 'to: hook\n          url: http://evil.example/\n'),
        /unknown key "url"; expected one of: to, title, message, when, attach, body, headers/,
      ],
    ];
    for (const [yaml, message] of cases) {
      assert.notEqual(yaml, RULES);
      const res = await save(yaml);
      assert.equal(res.status, 422, String(message));
      assert.match(String(res.body.error), message);
      assert.match(String(res.body.error), /^line \d+, column \d+/);
    }
  });
});
