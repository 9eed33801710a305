import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { openPage, screenshot, type UiPage } from './browser.js';
import { browserForFile, signIn } from './session.js';

// A name that Chromium resolves to 127.0.0.1, as a DNS-rebinding page's name would, and a LAN name the
// admin allowed (SVC_ALLOWED_HOSTS) that also reaches the service over loopback here.
const REBOUND = 'rebound.test';
const LAN_NAME = 'rules.lan';

// The two names map to loopback only; the pages on 127.0.0.1 and localhost are not affected.
const browser = browserForFile([`--host-resolver-rules=MAP ${REBOUND} 127.0.0.1, MAP ${LAN_NAME} 127.0.0.1`]);

describe('first start in the browser: the setup page with the setup code', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ SVC_ADMIN_USER: '', SVC_ADMIN_PASSWORD: '', SVC_ALLOWED_HOSTS: LAN_NAME });
  });
  after(async () => {
    await server?.close();
  });

  it('a rebound name gets nothing at all, not even the page (Host allow-list, 421)', async () => {
    const port = new URL(server.url).port;
    const ui = await openPage(browser(), `http://${REBOUND}:${port}`);
    try {
      const response = await ui.page.goto('/rules');
      assert.equal(response?.status(), 421);
      assert.match(await ui.page.content(), /does not answer to the host name/);
      const status = await ui.page.evaluate(
        "fetch('/api/setup', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'evil', password: 'evil password' }) }).then((r) => r.status)",
      );
      assert.equal(status, 421);
    } finally {
      await ui.context.close();
    }
  });

  it('under another (allowed) name the page asks for the setup code, and the service refuses a setup without it', async () => {
    const port = new URL(server.url).port;
    const ui = await openPage(browser(), `http://${LAN_NAME}:${port}`);
    try {
      await ui.page.goto('/rules');
      await ui.page.locator('#setup-form').waitFor();
      assert.match((await ui.page.locator('#setup-code-help').textContent()) ?? '', /setup code proves/);
      assert.equal(await ui.page.locator('#setup-code').inputValue(), '');
      const status = await ui.page.evaluate(
        "fetch('/api/setup', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'evil', password: 'evil password' }) }).then((r) => r.status)",
      );
      assert.equal(status, 403);
      assert.equal(
        fs.existsSync(path.join(server.dataDir, 'config.yml')) &&
          /admin_user/.test(fs.readFileSync(path.join(server.dataDir, 'config.yml'), 'utf8')),
        false,
      );
    } finally {
      await ui.context.close();
    }
  });

  it('the start log link fills the code in; creates the admin, signs in, keeps the deep link, is not offered again', async () => {
    const ui = await openPage(browser(), server.url.replace('127.0.0.1', 'localhost'));
    try {
      const { page } = ui;
      // What a person at the machine clicks: the link printed in the start log.
      const link = /(http\S+#setup-code=\S+)/.exec(server.logs.find((l) => l.includes('#setup-code=')) ?? '')?.[1];
      assert.ok(link);
      await page.goto(link.replace('127.0.0.1', 'localhost'));
      await page.locator('#setup-form').waitFor();
      assert.equal(new URL(page.url()).hash, '', 'the code leaves the address bar');
      await page.goto('/traces?status=error');
      await page.waitForURL(/\/login\?next=%2Ftraces%3Fstatus%3Derror$/);
      await page.locator('#setup-form').waitFor();
      assert.equal(await page.title(), 'Set up · dms-rules');
      assert.equal(
        await page.locator('#setup-code').inputValue(),
        fs.readFileSync(path.join(server.dataDir, 'setup-code'), 'utf8').trim(),
      );
      await screenshot(page, '10-first-start');
      await page.fill('#setup-user', 'owner');
      await page.fill('#setup-password', 'a good long password');
      await page.fill('#setup-password-again', 'a good long password');
      await page.click('#setup-form button[type=submit]');
      await page.waitForURL(/\/traces\?status=error$/);
      assert.equal(await page.locator('#filter-status').inputValue(), 'error');
      assert.equal(await page.locator('#current-user').textContent(), 'owner');
      const config = fs.readFileSync(path.join(server.dataDir, 'config.yml'), 'utf8');
      assert.match(config, /admin_user: owner/);
      assert.match(config, /admin_password_hash: .*scrypt/);
      await page.click('#logout');
      await page.locator('form.login-card #login-user').waitFor();
      assert.equal(await page.locator('#setup-form').count(), 0);
      assert.deepEqual(ui.problems, []);
    } finally {
      await ui.context.close();
    }
  });
});

describe('settings: testing the dms connection before saving', () => {
  let sim: Simulator;
  let server: TestServer;
  // One signed-in page for both tests (a browser context is ~0.5 s of CPU); each test loads the settings afresh.
  let ui: UiPage;
  before(async () => {
    sim = await startSimulator();
    server = await startTestServer(); // the demo dms; the simulator above plays the Paperless to switch to
    ui = await openPage(browser(), server.url);
    await signIn(ui.page, '/settings');
  });
  after(async () => {
    await ui?.context.close();
    await server?.close();
    await sim?.close();
  });

  it('reports reachable, the Paperless version and what the token may see; a wrong token says so', async () => {
    const { page } = ui;
    await page.locator('#settings-dms_url').waitFor();
    assert.equal(await page.title(), 'Settings · dms-rules');
    await page.fill('#settings-dms_url', sim.url);
    await page.fill('#settings-dms_token', sim.token);
    await page.click('#test-dms-button');
    const result = page.locator('#test-dms-result[data-kind="ok"]');
    await result.waitFor();
    const text = (await result.textContent()) ?? '';
    assert.match(text, new RegExp(`Reachable at ${sim.url.replace(/[.]/g, '\\.')}: Paperless-ngx \\d`));
    assert.match(text, /The token may see \d+ tags, \d+ correspondents/);
    await screenshot(page, '11-connection-test');
    await page.fill('#settings-dms_token', 'not-the-token');
    await page.click('#test-dms-button');
    await page.locator('#test-dms-result[data-kind="error"]', { hasText: 'the token was refused' }).waitFor();
    assert.match(
      fs.existsSync(path.join(server.dataDir, 'config.yml'))
        ? fs.readFileSync(path.join(server.dataDir, 'config.yml'), 'utf8')
        : '',
      /^(?![\s\S]*dms_url)/,
      'testing saved nothing',
    );
    assert.deepEqual(ui.problems, []);
  });

  it('keeps "connected now" apart from the test of the typed URL, and asks before saving a URL that does not answer', async () => {
    const { page } = ui;
    await page.goto('/settings');
    await page.locator('#settings-dms_url').waitFor();
    assert.equal(await page.locator('h3', { hasText: 'Connected now (what the running service uses)' }).count(), 1);
    assert.equal(await page.locator('h3', { hasText: 'Test the URL and token typed above' }).count(), 1);
    await page.locator('#dms-status-version', { hasText: 'Connected to the built-in demo dms' }).waitFor();
    await page.fill('#settings-dms_url', 'http://127.0.0.1:9');
    await page.click('form.settings button[type=submit]');
    await page
      .locator('#settings-status[data-kind="error"]', {
        hasText: /^Not saved: Not reachable at http:\/\/127\.0\.0\.1:9.*Correct the URL, or save it anyway\.$/,
      })
      .waitFor();
    await page.locator('#settings-save-anyway').waitFor(); // offered, not pressed: nothing is saved
    const stored = path.join(server.dataDir, 'config.yml');
    assert.doesNotMatch(
      fs.existsSync(stored) ? fs.readFileSync(stored, 'utf8') : '',
      /127\.0\.0\.1:9/,
      'nothing saved',
    );
    assert.deepEqual(ui.problems, []);
  });
});
