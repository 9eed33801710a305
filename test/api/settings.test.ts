import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import YAML from 'yaml';
import { hashPassword } from '../../server/auth/passwords.js';
import { ADMIN, API_TOKEN, call, login, startTestServer, tempDir, type TestServer } from '../helpers/test-server.js';

// Nothing from the environment: the admin account and the token live in config.yml, as on the desktop.
const NO_ENV = { SVC_ADMIN_USER: '', SVC_ADMIN_PASSWORD: '', SVC_API_TOKEN: '' };

function dataDirWithConfig(text: string): string {
  const dir = tempDir('dms-rules-settings-');
  fs.writeFileSync(path.join(dir, 'config.yml'), text);
  return dir;
}

const readConfig = (dir: string) =>
  YAML.parse(fs.readFileSync(path.join(dir, 'config.yml'), 'utf8')) as Record<string, unknown>;

describe('settings page API backed by config.yml', () => {
  let server: TestServer;
  let cookie: string;
  before(async () => {
    const dataDir = dataDirWithConfig(
      `# kept by the settings page\nadmin_user: ${ADMIN.username}\nadmin_password_hash: "${hashPassword(ADMIN.password)}"\napi_token: ${API_TOKEN}\ntrace_retention: 500\n`,
    );
    server = await startTestServer(NO_ENV, { dataDir });
    cookie = await login(server.url);
  });
  after(() => server.close());

  const put = (body: unknown, c = cookie) => call(server.url, '/api/ui/settings', { method: 'PUT', body, cookie: c });

  test('GET needs a session and never returns a secret', async () => {
    assert.equal((await call(server.url, '/api/ui/settings')).status, 401);
    assert.equal((await call(server.url, '/api/ui/settings', { token: API_TOKEN })).status, 401);
    const res = await call(server.url, '/api/ui/settings', { cookie });
    assert.equal(res.status, 200);
    assert.deepEqual(
      { ...res.body, config_file: undefined },
      {
        dms_url: null,
        dms_token_set: false,
        admin_user: ADMIN.username,
        admin_password_set: true,
        api_token_set: true,
        webhook_dry_run: false,
        poll_minutes: null,
        restart_required: false,
        overridden_by_env: [],
        config_file: undefined,
        notify_targets: [],
      },
    );
    assert.ok(!JSON.stringify(res.body).includes(API_TOKEN));
    assert.ok(!JSON.stringify(res.body).includes('scrypt$'));
  });

  test('invalid values are 400 with a message and leave config.yml alone', async () => {
    const before = fs.readFileSync(path.join(server.dataDir, 'config.yml'), 'utf8');
    const cases: Array<[unknown, RegExp]> = [
      [{ dms_url: 'ftp://paperless.lan' }, /http/],
      [{ dms_url: 'not a url' }, /URL/],
      [{ api_token: 'short' }, /16/],
      [{ api_token: 'has spaces in the middle of it' }, /spaces/],
      [{ admin_user: ' padded ' }, /admin_user/],
      [{ admin_user: '' }, /admin_user/],
      [{ admin_password: 'short' }, /8/],
      [{ webhook_dry_run: 'maybe' }, /true or false/],
      [{ dms_password: 'x' }, /Unknown setting "dms_password"/],
      [{}, /Nothing to change/],
      [[1, 2], /JSON object/],
    ];
    for (const [body, message] of cases) {
      const res = await put(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.ok, false);
      assert.match(String(res.body.error), message);
    }
    assert.equal(fs.readFileSync(path.join(server.dataDir, 'config.yml'), 'utf8'), before);
  });

  test('PUT refuses a cross-origin write', async () => {
    const res = await call(server.url, '/api/ui/settings', {
      method: 'PUT',
      body: { webhook_dry_run: true },
      cookie,
      headers: { origin: 'http://evil.example' },
    });
    assert.equal(res.status, 403);
  });

  test('a new API token replaces the old one at once and is stored with 0600', async () => {
    const newToken = 'rotated-token-abcdefghijklmnop';
    const res = await put({ api_token: newToken, current_password: ADMIN.password });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { ok: true, restart_required: false, dms_switched: false, overridden_by_env: [] });

    assert.equal((await call(server.url, '/api/traces', { token: API_TOKEN })).status, 401);
    assert.equal((await call(server.url, '/api/traces', { token: newToken })).status, 200);

    const file = path.join(server.dataDir, 'config.yml');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const text = fs.readFileSync(file, 'utf8');
    assert.match(text, /# kept by the settings page/, 'comments survive');
    assert.equal(readConfig(server.dataDir).api_token, newToken);
    assert.equal(readConfig(server.dataDir).trace_retention, 500, 'other settings survive');
    assert.deepEqual(
      fs.readdirSync(server.dataDir).filter((f) => f.endsWith('.tmp')),
      [],
    );
  });

  test('a new admin password is stored as an scrypt hash, works for the next login at once and ends other sessions', async () => {
    const otherCookie = await login(server.url);
    const res = await put({ admin_password: 'a much newer passphrase', current_password: ADMIN.password });
    assert.equal(res.status, 200);
    assert.equal(
      (await call(server.url, '/api/ui/me', { cookie: otherCookie })).status,
      401,
      'a session from before the change ends',
    );
    const renewed = (res.headers.get('set-cookie') ?? '').split(';')[0];
    assert.equal(
      (await call(server.url, '/api/ui/me', { cookie: renewed })).status,
      200,
      'the person who changed it stays signed in',
    );
    cookie = renewed;
    const stored = readConfig(server.dataDir);
    assert.match(String(stored.admin_password_hash), /^scrypt\$/);
    assert.ok(!fs.readFileSync(path.join(server.dataDir, 'config.yml'), 'utf8').includes('a much newer passphrase'));

    assert.equal((await call(server.url, '/api/auth', { body: ADMIN })).status, 403);
    const ok = await call(server.url, '/api/auth', {
      body: { username: ADMIN.username, password: 'a much newer passphrase' },
    });
    assert.equal(ok.status, 200);
  });

  test('renaming the admin keeps the renaming session signed in and changes the login name', async () => {
    const other = await call(server.url, '/api/auth', {
      body: { username: ADMIN.username, password: 'a much newer passphrase' },
    });
    const otherCookie = (other.headers.get('set-cookie') ?? '').split(';')[0];

    const res = await put({ admin_user: 'root-admin' });
    assert.equal(res.status, 200);
    const renewed = (res.headers.get('set-cookie') ?? '').split(';')[0];
    assert.match(renewed, /^svc_session=/);
    const me = await call(server.url, '/api/ui/me', { cookie: renewed });
    assert.deepEqual(me.body, { username: 'root-admin' });
    assert.equal(
      (await call(server.url, '/api/ui/me', { cookie: otherCookie })).status,
      401,
      'other sessions of the old name end',
    );
    cookie = renewed;

    const login = await call(server.url, '/api/auth', {
      body: { username: 'root-admin', password: 'a much newer passphrase' },
    });
    assert.equal(login.status, 200);
  });

  test('webhook dry-run applies live and shows in the UI config', async () => {
    const res = await put({ webhook_dry_run: true });
    assert.equal(res.body.restart_required, false);
    const config = await call(server.url, '/api/ui/config', { cookie });
    assert.equal(config.body.webhook_dry_run, true);
    assert.equal(readConfig(server.dataDir).webhook_dry_run, true);
  });

  test('a dms URL change applies to the running service at once, and so does undoing it', async () => {
    assert.equal((await call(server.url, '/api/ui/config', { cookie })).body.demo, true);
    // A closed loopback port: the service switches to it (the page warned before saving) and says it does not answer.
    const res = await put({ dms_url: 'http://127.0.0.1:9/', dms_token: 'abc123' });
    assert.equal(res.status, 200);
    assert.equal(res.body.restart_required, false);
    assert.equal(res.body.dms_switched, true);
    const view = await call(server.url, '/api/ui/settings', { cookie });
    assert.equal(view.body.dms_url, 'http://127.0.0.1:9');
    assert.equal(view.body.dms_token_set, true);
    assert.equal(view.body.restart_required, false);
    const config = (await call(server.url, '/api/ui/config', { cookie })).body;
    assert.deepEqual([config.dms_url, config.demo], ['http://127.0.0.1:9', false], 'the running service uses it');

    const undo = await put({ dms_url: null, dms_token: null });
    assert.equal(undo.body.restart_required, false);
    assert.equal((await call(server.url, '/api/ui/config', { cookie })).body.demo, true, 'back on the demo dms');
    const stored = readConfig(server.dataDir);
    assert.equal('dms_url' in stored, false);
    assert.equal('dms_token' in stored, false);
  });

  test('the token-exfiltration attempt: a new dms URL without a new token drops the stored token', async () => {
    assert.equal((await put({ dms_url: 'http://paperless.lan:8000', dms_token: 'real-paperless-token' })).status, 200);
    const res = await put({ dms_url: 'http://listener.evil.example:9000' });
    assert.equal(res.status, 200);
    assert.equal(
      (await call(server.url, '/api/ui/settings', { cookie })).body.dms_token_set,
      false,
      'the next start sends no token to the new URL',
    );
    assert.equal('dms_token' in readConfig(server.dataDir), false);
    assert.ok(!fs.readFileSync(path.join(server.dataDir, 'config.yml'), 'utf8').includes('real-paperless-token'));
    assert.equal((await put({ dms_url: null })).status, 200);
  });

  test('changing the admin password or the API token needs the current password', async () => {
    const password = 'a much newer passphrase'; // set by an earlier test in this file
    for (const change of [{ admin_password: 'stolen-session-pw' }, { api_token: 'stolen-session-token-abcdef' }]) {
      const missing = await put(change);
      assert.equal(missing.status, 403, JSON.stringify(change));
      assert.match(String(missing.body.error), /current password/i);
      assert.equal((await put({ ...change, current_password: 'not it at all' })).status, 403);
    }
    assert.notEqual(readConfig(server.dataDir).api_token, 'stolen-session-token-abcdef');
    assert.equal((await put({ api_token: 'rightful-token-abcdefghijk', current_password: password })).status, 200);
  });

  test('a config.yml that cannot be parsed is not overwritten', async () => {
    const file = path.join(server.dataDir, 'config.yml');
    const good = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, 'api_token: [unclosed\n');
    try {
      const res = await put({ webhook_dry_run: false });
      assert.equal(res.status, 409);
      assert.match(String(res.body.error), /not valid YAML/);
      assert.equal(fs.readFileSync(file, 'utf8'), 'api_token: [unclosed\n');
    } finally {
      fs.writeFileSync(file, good);
    }
  });

  test('polling is offered and applies at once; a wrong interval is a 400', async () => {
    const res = await put({ poll_minutes: 3 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(readConfig(server.dataDir).poll_minutes, '3');
    const health = await call<{ arrival: { polling_minutes: number } }>(server.url, '/api/health', { cookie });
    assert.equal(health.body.arrival.polling_minutes, 3);
    const bad = await put({ poll_minutes: 'often' });
    assert.equal(bad.status, 400);
    assert.match(String(bad.body.error), /poll_minutes must be a whole number/);
    assert.equal((await put({ poll_minutes: null })).status, 200);
  });
});

describe('settings set by environment variables', () => {
  let server: TestServer;
  let cookie: string;
  before(async () => {
    server = await startTestServer({ SVC_WEBHOOK_DRY_RUN: 'true' });
    cookie = await login(server.url);
  });
  after(() => server.close());

  test('GET names the settings the environment overrides', async () => {
    const res = await call(server.url, '/api/ui/settings', { cookie });
    assert.deepEqual(res.body.overridden_by_env, ['admin_user', 'admin_password', 'api_token', 'webhook_dry_run']);
  });

  test('a change to an env-set value is saved, reported as overridden, and not applied', async () => {
    const res = await put({
      api_token: 'file-token-abcdefghijklmnop',
      webhook_dry_run: false,
      current_password: ADMIN.password,
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.overridden_by_env, ['api_token', 'webhook_dry_run']);
    assert.equal(res.body.restart_required, false);
    assert.equal(
      (await call(server.url, '/api/traces', { token: API_TOKEN })).status,
      200,
      'the env token still works',
    );
    assert.equal((await call(server.url, '/api/traces', { token: 'file-token-abcdefghijklmnop' })).status, 401);
    assert.equal((await call(server.url, '/api/ui/config', { cookie })).body.webhook_dry_run, true);
  });

  test('the admin password cannot be set next to SVC_ADMIN_PASSWORD (409, file untouched)', async () => {
    const before = fs.readFileSync(path.join(server.dataDir, 'config.yml'), 'utf8');
    const res = await put({ admin_password: 'another passphrase' });
    assert.equal(res.status, 409);
    assert.match(String(res.body.error), /SVC_ADMIN_PASSWORD/);
    assert.equal(fs.readFileSync(path.join(server.dataDir, 'config.yml'), 'utf8'), before);
  });

  function put(body: unknown) {
    return call(server.url, '/api/ui/settings', { method: 'PUT', body, cookie });
  }
});
