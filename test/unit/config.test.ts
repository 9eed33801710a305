import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigError, describeConfig, DMS_WORKERS, loadConfig, prepareDirectories } from '../../server/config.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'dms-rules-config-'));

test('defaults make a working config with no environment at all', () => {
  const cwd = tmp();
  const config = loadConfig({ env: {}, cwd });
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.port, 8484);
  assert.equal(config.dataDir, path.join(cwd, 'data'));
  assert.equal(config.rulesDir, path.join(cwd, 'rules.d'));
  assert.equal(config.dmsUrl, null);
  assert.equal(config.traceRetention, 20000);
  assert.equal(config.webhookDryRun, false);
});

test('a wrong port stops start-up with a line naming the variable', () => {
  assert.throws(
    () => loadConfig({ env: { SVC_PORT: 'abc' }, cwd: tmp() }),
    (err: Error) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /SVC_PORT/);
      return true;
    },
  );
  assert.throws(() => loadConfig({ env: { SVC_PORT: '70000' }, cwd: tmp() }), /SVC_PORT/);
});

test('a wrong dms URL and a wrong boolean name their variables', () => {
  assert.throws(() => loadConfig({ env: { SVC_DMS_URL: 'paperless.lan' }, cwd: tmp() }), /SVC_DMS_URL/);
  assert.throws(() => loadConfig({ env: { SVC_DMS_URL: 'ftp://x' }, cwd: tmp() }), /SVC_DMS_URL/);
  assert.throws(() => loadConfig({ env: { SVC_WEBHOOK_DRY_RUN: 'maybe' }, cwd: tmp() }), /SVC_WEBHOOK_DRY_RUN/);
});

test('the dms read plan takes a page size and a number of web workers, and refuses what it cannot use', () => {
  const config = loadConfig({ env: { SVC_DMS_PAGE_SIZE: '250', SVC_DMS_WORKERS: '4' }, cwd: tmp() });
  assert.equal(config.dmsPageSize, 250);
  assert.equal(config.dmsWorkers, 4);
  const defaults = loadConfig({ env: {}, cwd: tmp() });
  assert.equal(defaults.dmsPageSize, 500);
  assert.equal(defaults.dmsWorkers, DMS_WORKERS.default);
  for (const [name, value] of [
    ['SVC_DMS_PAGE_SIZE', '50'],
    ['SVC_DMS_PAGE_SIZE', '5000'],
    ['SVC_DMS_WORKERS', '0'],
    ['SVC_DMS_WORKERS', '8'],
    ['SVC_DMS_WORKERS', 'two'],
  ])
    assert.throws(
      () => loadConfig({ env: { [name]: value }, cwd: tmp() }),
      (err: Error) =>
        err instanceof ConfigError &&
        err.message ===
          `${name} must be a whole number from ${name === 'SVC_DMS_WORKERS' ? '1 to 4' : '100 to 1000'}, got "${value}"`,
    );
});

test('an empty variable counts as unset', () => {
  const config = loadConfig({ env: { SVC_PORT: '', SVC_ADMIN_USER: '' }, cwd: tmp() });
  assert.equal(config.port, 8484);
  assert.equal(config.adminUser, null);
});

test('config.yml in the data dir supplies values; the environment wins', () => {
  const dataDir = tmp();
  fs.writeFileSync(path.join(dataDir, 'config.yml'), 'dms_url: http://paperless.lan:8000/\nsvc_port: 9000\n');
  const fromFile = loadConfig({ env: { SVC_DATA_DIR: dataDir }, cwd: tmp() });
  assert.equal(fromFile.dmsUrl, 'http://paperless.lan:8000');
  assert.equal(fromFile.port, 9000);
  const envWins = loadConfig({ env: { SVC_DATA_DIR: dataDir, SVC_PORT: '9100' }, cwd: tmp() });
  assert.equal(envWins.port, 9100);
});

test('an unknown key in config.yml is an error naming it', () => {
  const dataDir = tmp();
  fs.writeFileSync(path.join(dataDir, 'config.yml'), 'dms_ulr: http://x\n');
  assert.throws(() => loadConfig({ env: { SVC_DATA_DIR: dataDir }, cwd: tmp() }), /dms_ulr/);
});

test('an unusable rules dir stops start-up naming SVC_RULES_DIR', () => {
  const dir = tmp();
  const file = path.join(dir, 'a-file');
  fs.writeFileSync(file, 'x');
  const config = loadConfig({ env: { SVC_RULES_DIR: file, SVC_DATA_DIR: path.join(dir, 'data') }, cwd: dir });
  assert.throws(() => prepareDirectories(config), /SVC_RULES_DIR/);
});

test('describeConfig masks every secret', () => {
  const config = loadConfig({
    env: {
      SVC_ADMIN_PASSWORD: 'pw-123',
      SVC_API_TOKEN: 'tok-456',
      SVC_DMS_TOKEN: 'dms-789',
      SVC_JWT_SECRET: 'jwt-000',
      SVC_ADMIN_USER: 'anna',
    },
    cwd: tmp(),
  });
  const text = JSON.stringify(describeConfig(config));
  for (const secret of ['pw-123', 'tok-456', 'dms-789', 'jwt-000']) assert.ok(!text.includes(secret), secret);
  assert.match(text, /anna/);
});

test('SVC_VAR_* variables are collected for vars templates', () => {
  const config = loadConfig({ env: { SVC_VAR_YEAR: '2025', OTHER: 'x' }, cwd: tmp() });
  assert.deepEqual(config.templateEnv, { SVC_VAR_YEAR: '2025' });
});

test('a dms URL with user info is refused with a message pointing to SVC_DMS_TOKEN', () => {
  assert.throws(
    () => loadConfig({ env: { SVC_DMS_URL: 'http://user:secret@paperless.lan:8000' }, cwd: tmp() }),
    /SVC_DMS_URL must not contain a user name or password; put the Paperless API token in SVC_DMS_TOKEN/,
  );
});

test('allowed hosts, public URL and trusted proxies are checked at start', () => {
  const config = loadConfig({
    env: {
      SVC_ALLOWED_HOSTS: 'Rules.LAN, rules.lan:8443 [::1]',
      SVC_PUBLIC_URL: 'https://rules.example.com/',
      SVC_TRUST_PROXY: 'loopback, 10.0.0.0/8',
    },
    cwd: tmp(),
  });
  assert.deepEqual(config.allowedHosts, ['rules.lan', 'rules.lan:8443', '[::1]']);
  assert.equal(config.publicUrl, 'https://rules.example.com');
  assert.equal(config.trustProxy, 'loopback,10.0.0.0/8');
  assert.throws(() => loadConfig({ env: { SVC_ALLOWED_HOSTS: 'http://rules.lan' }, cwd: tmp() }), /SVC_ALLOWED_HOSTS/);
  assert.throws(
    () => loadConfig({ env: { SVC_PUBLIC_URL: 'https://rules.example.com/app' }, cwd: tmp() }),
    /SVC_PUBLIC_URL must be an origin only/,
  );
  assert.throws(() => loadConfig({ env: { SVC_TRUST_PROXY: 'everyone' }, cwd: tmp() }), /SVC_TRUST_PROXY/);
  assert.equal(
    describeConfig(loadConfig({ env: { SVC_WEBHOOK_TOKEN: 'hook-secret-123' }, cwd: tmp() })).SVC_WEBHOOK_TOKEN,
    '(set)',
  );
});
