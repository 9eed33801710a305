import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import type { UiPage } from './browser.js';
import { startSignedIn, type UiSession } from './session.js';

// Starts on the demo dms; the settings page tests a Paperless (the simulator), saves it, and the page follows.
describe('settings: a new dms applies at once, and the page says so', () => {
  let sim: Simulator;
  let session: UiSession;
  let ui: UiPage;
  let page: Page;

  before(async () => {
    sim = await startSimulator();
    // The page may reach the simulator's origin only through the service; nothing here needs it directly.
    session = await startSignedIn({ next: '/settings', ready: '#settings-dms_url' });
    ({ ui, page } = session);
  });
  after(async () => {
    await session?.close();
    await sim?.close();
  });

  it('says polling misses bulk edits only while polling is on', async () => {
    // The test server has an API token, so automatic polling is off.
    assert.equal(await page.locator('#settings-polling-note').isVisible(), false);
    await page.fill('#settings-poll_minutes', '5');
    await page.locator('#settings-polling-note', { hasText: 'reports each change at once' }).waitFor();
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
    // The token just saved reads as set, without a reload; the field itself stays empty (write-only).
    await page.locator('#settings-dms_token[placeholder="set — leave empty to keep"]').waitFor();
    assert.equal(await page.inputValue('#settings-dms_token'), '');
    assert.deepEqual(ui.problems, [], ui.problems.join('\n'));
  });
});
