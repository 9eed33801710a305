import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { browserForFile, withSignedInPage } from './session.js';
import { advanceUntil, UI_TIMERS } from './ui-clock.js';

const browser = browserForFile();

describe('honest states: what the page says follows what is true', () => {
  let sim: Simulator | undefined;
  let server: TestServer;
  before(async () => {
    server = await startTestServer(); // the demo dms
  });
  after(async () => {
    await server?.close();
    await sim?.close();
  });

  it('"Save anyway" saves a dms that does not answer; the banner goes by itself once it answers', async () => {
    const dead = await startSimulator();
    const { port } = new URL(dead.url);
    await dead.close(); // its port refuses connections
    await withSignedInPage(browser(), server.url, '/settings', async (ui) => {
      const { page } = ui;
      assert.equal(await page.locator('#settings-dms_token').getAttribute('placeholder'), 'not set');
      await page.fill('#settings-dms_url', dead.url);
      await page.fill('#settings-dms_token', dead.token);
      await page.click('form.settings button[type=submit]');
      const status = page.locator('#settings-status');
      await status.locator('text=/^Not saved: Not reachable at .*Correct the URL, or save it anyway\\.$/').waitFor();
      await page.click('#settings-save-anyway');
      await status.locator('text=/Settings saved/').waitFor();
      assert.equal(await page.locator('#settings-save-anyway').isVisible(), false);
      // The token field says it is stored without a reload.
      assert.equal(await page.locator('#settings-dms_token').getAttribute('placeholder'), 'set — leave empty to keep');
      const banner = page.locator('#dms-down:not([hidden])');
      await page.click('.topbar nav a[href="/settings"]'); // a new page asks the dms again
      await banner.waitFor();
      await page.locator('#dms-status-error').waitFor();

      // Paperless comes back at that address: the banner and "Connected now" follow, with no page change.
      sim = await startSimulator({ port: Number(port), token: dead.token });
      await advanceUntil(page, banner, UI_TIMERS.dmsRecheck, 'detached');
      await page.locator('#dms-status-error').waitFor({ state: 'detached' });
      await page.locator('#dms-status', { hasText: sim.url }).waitFor();
      // With no banner, nothing asks the dms again however much time passes.
      const rechecks: string[] = [];
      page.on('request', (r) => {
        if (/\/api\/health\?deep=1/.test(r.url())) rechecks.push(r.url());
      });
      await page.clock.fastForward(UI_TIMERS.dmsRecheck * 5);
      await page.evaluate("fetch('/api/health').then((r) => r.status)"); // requests are seen in order: any recheck came before
      assert.deepEqual(rechecks, []);
      assert.deepEqual(
        ui.problems.filter((p) => !/status of 5\d\d/.test(p)),
        [],
      );
    });
  });

  it('a rule file that does not load never reads as saved or published', async () => {
    fs.writeFileSync(path.join(server.rulesDir, 'broken.yml'), 'rules:\n  - id: broken\n    when: [unclosed\n');
    await withSignedInPage(browser(), server.url, '/rules', async ({ page }) => {
      await page.evaluate("fetch('/api/reload', { method: 'POST' })");
      await page.goto('/rules');
      await page.click('.tree li[data-path="broken.yml"] a');
      await page.locator('.editor-pane .error-box', { hasText: 'The published file did not load' }).waitFor();
      const state = (await page.locator('#save-state').textContent()) ?? '';
      assert.doesNotMatch(state, /^Published|Saved/);
      assert.match(state, /does not load/);
      assert.notEqual(await page.locator('#save-button').textContent(), 'Saved');
    });
  });
});
