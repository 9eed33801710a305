import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import { ADMIN, startTestServer, type TestServer } from '../helpers/test-server.js';
import { launchBrowser, openPage, type UiPage } from './browser.js';

// Starts on the demo dms; the settings page tests a Paperless (the simulator), saves it, and the page follows.
describe('settings: a new dms applies at once, and the page says so', () => {
  let sim: Simulator;
  let server: TestServer;
  let browser: Browser;
  let ui: UiPage;
  let page: Page;

  before(async () => {
    sim = await startSimulator();
    server = await startTestServer();
    browser = await launchBrowser();
    ui = await openPage(browser, server.url);
    // The page may reach the simulator's origin only through the service; nothing here needs it directly.
    page = ui.page;
    page.setDefaultTimeout(15_000);
    await page.goto('/login?next=%2Fsettings');
    await page.fill('#login-user', ADMIN.username);
    await page.fill('#login-password', ADMIN.password);
    await page.click('form.login-card button[type=submit]');
    await page.locator('#settings-dms_url').waitFor();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await sim?.close();
  });

  it('says polling misses bulk edits only while polling is on', async () => {
    // The test server has an API token, so automatic polling is off.
    assert.equal(await page.locator('#settings-polling-note').isVisible(), false);
    await page.fill('#settings-poll_minutes', '5');
    await page.locator('#settings-polling-note', { hasText: 'seen only through the webhook' }).waitFor();
    await page.fill('#settings-poll_minutes', '');
    assert.equal(await page.locator('#settings-polling-note').isVisible(), false);
  });

  it('tests the typed URL apart from the connection in use, then switches to it without a restart', async () => {
    await page.locator('#demo-banner').waitFor();
    assert.equal(await page.locator('#dms-badge').textContent(), 'demo dms');
    await page.fill('#settings-dms_url', sim.url);
    await page.fill('#settings-dms_token', sim.token);
    await page.click('#test-dms-button');
    const result = page.locator('#test-dms-result');
    await result.locator('p', { hasText: `Reachable at ${sim.url}` }).waitFor();
    assert.match((await result.textContent()) ?? '', /Own changes vs a person's: by Paperless's audit log/);
    assert.match((await page.locator('#dms-status').textContent()) ?? '', /demo/i, 'connected now: still the demo');

    await page.click('form.settings button[type=submit]');
    await page.locator('#settings-status', { hasText: 'The service now uses the new dms.' }).waitFor();
    await page.locator('#demo-banner').waitFor({ state: 'hidden' });
    assert.equal(await page.locator('#dms-badge').textContent(), new URL(sim.url).host);
    await page.locator('#dms-status', { hasText: sim.url }).waitFor();
    assert.equal(await page.locator('#settings-restart').isVisible(), false, 'no restart needed');
    assert.deepEqual(ui.problems, [], ui.problems.join('\n'));
  });
});
