import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import YAML from 'yaml';
import { call, login, saveRuleFile, startTestServer, type TestServer } from '../helpers/test-server.js';
import { startReceiver, startSmtp } from './support/notify-kit.js';

const readConfig = (dir: string) =>
  YAML.parse(fs.readFileSync(path.join(dir, 'config.yml'), 'utf8')) as Record<string, unknown>;

describe('notify targets in the settings: config.yml is the store, secrets are write-only', () => {
  let server: TestServer;
  let cookie: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  before(async () => {
    receiver = await startReceiver((p) => (p === '/refuses' ? 403 : 200));
    smtp = await startSmtp();
    server = await startTestServer();
    cookie = await login(server.url);
  });
  after(async () => {
    await server?.close();
    await receiver?.close();
    await smtp?.close();
  });

  const put = (name: string, body: unknown) =>
    call(server.url, `/api/ui/settings/notify-targets/${name}`, { method: 'PUT', body, cookie });
  const list = async () =>
    (await call<{ targets: Array<Record<string, unknown>> }>(server.url, '/api/ui/settings/notify-targets', { cookie }))
      .body.targets;

  test('adds an HTTP target: stored in config.yml, listed without its header value, usable by rules at once', async () => {
    assert.equal((await call(server.url, '/api/ui/settings/notify-targets')).status, 401);
    const res = await put('phone', {
      kind: 'http',
      url: `${receiver.url}/topic`,
      format: 'text',
      headers: { Authorization: 'Bearer s3cret' },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const stored = readConfig(server.dataDir).notify_targets as Record<string, { headers: Record<string, string> }>;
    assert.equal(stored.phone.headers.Authorization, 'Bearer s3cret');
    const listed = await list();
    assert.deepEqual(listed, [
      { name: 'phone', kind: 'http', url: `${receiver.url}/topic`, format: 'text', headers: ['Authorization'] },
    ]);
    assert.doesNotMatch(JSON.stringify(listed), /s3cret/);
    // A rule naming it saves without a restart.
    fs.writeFileSync(path.join(server.rulesDir, 'tell.yml'), 'rules: []\n');
    await call(server.url, '/api/reload', { method: 'POST', cookie });
    const saved = await saveRuleFile(
      server.url,
      'tell.yml',
      'rules:\n  - id: tell-phone\n    actions:\n      - notify: { to: phone, message: "hi" }\n',
    );
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
  });

  test('an edit that sends no header value keeps the stored one; a test send reaches the target with it', async () => {
    const res = await put('phone', {
      kind: 'http',
      url: `${receiver.url}/topic`,
      format: 'json',
      headers: { Authorization: '' },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const test = await call<{ ok: boolean; answer: string }>(server.url, '/api/ui/settings/notify-targets/phone/test', {
      method: 'POST',
      cookie,
    });
    assert.deepEqual(test.body, { ok: true, answer: 'Sent: "phone" accepted the test message.' });
    const last = receiver.received.at(-1)!;
    assert.equal(last.headers.authorization, 'Bearer s3cret');
    assert.match(last.body, /test message/);
  });

  test("a test send says the target's refusal in words", async () => {
    await put('strict', { kind: 'http', url: `${receiver.url}/refuses` });
    const test = await call<{ ok: boolean; answer: string }>(
      server.url,
      '/api/ui/settings/notify-targets/strict/test',
      {
        method: 'POST',
        cookie,
      },
    );
    assert.deepEqual(test.body, { ok: false, answer: 'Not sent: answered HTTP 403' });
  });

  test('an e-mail target shows its SMTP password as set, masked; sending the mask back keeps it', async () => {
    const smtpUrl = new URL(smtp.url);
    smtpUrl.username = 'mailer';
    smtpUrl.password = 'pw1';
    const res = await put('office', {
      kind: 'email',
      smtp: smtpUrl.toString(),
      from: 'dms@example.org',
      to: ['a@example.org'],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const office = (await list()).find((t) => t.name === 'office')!;
    assert.equal(office.smtp_password_set, true);
    assert.match(String(office.smtp), /mailer:\*{8}@/);
    await put('office', { kind: 'email', smtp: office.smtp, from: 'dms@example.org', to: ['b@example.org'] });
    const stored = readConfig(server.dataDir).notify_targets as Record<string, { smtp: string; to: string[] }>;
    assert.match(stored.office.smtp, /mailer:pw1@/);
    assert.deepEqual(stored.office.to, ['b@example.org']);
  });

  test("a credential in the URL's query (Gotify's ?token=) reads as the mask; sending the mask back keeps it", async () => {
    assert.equal(
      (await put('gotify', { kind: 'http', url: `${receiver.url}/message?token=t0ken&priority=5` })).status,
      200,
    );
    const gotify = (await list()).find((t) => t.name === 'gotify')!;
    assert.equal(gotify.url, `${receiver.url}/message?token=********&priority=5`);
    assert.doesNotMatch(JSON.stringify(await list()), /t0ken/);
    const res = await put('gotify', { kind: 'http', url: gotify.url, format: 'text' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.doesNotMatch(JSON.stringify(res.body), /t0ken/);
    await call(server.url, '/api/ui/settings/notify-targets/gotify/test', { method: 'POST', cookie });
    assert.equal(receiver.received.at(-1)?.path, '/message?token=t0ken&priority=5');
    // The mask with nothing stored behind it is refused, never stored as the token.
    const fresh = await put('fresh', { kind: 'http', url: `${receiver.url}/message?token=********` });
    assert.equal(fresh.status, 400);
    assert.match((fresh.body as { error: string }).error, /"token" needs a value/);
  });

  test('refuses a bad target with a message naming the key, and leaves config.yml as it was', async () => {
    const before = fs.readFileSync(path.join(server.dataDir, 'config.yml'), 'utf8');
    const res = await put('broken', { kind: 'http', url: 'ftp://x' });
    assert.equal(res.status, 400);
    assert.match((res.body as { error: string }).error, /^url must start with http: or https:/);
    assert.equal((await put('bad name', { kind: 'http', url: 'http://x' })).status, 400);
    assert.equal(fs.readFileSync(path.join(server.dataDir, 'config.yml'), 'utf8'), before);
  });

  test('removes a target from config.yml and from the running service', async () => {
    const res = await call(server.url, '/api/ui/settings/notify-targets/strict', { method: 'DELETE', cookie });
    assert.equal(res.status, 200);
    assert.equal(
      (await list()).some((t) => t.name === 'strict'),
      false,
    );
    assert.equal('strict' in (readConfig(server.dataDir).notify_targets as object), false);
    const gone = await call(server.url, '/api/ui/settings/notify-targets/strict/test', { method: 'POST', cookie });
    assert.equal(gone.status, 404);
  });
});
