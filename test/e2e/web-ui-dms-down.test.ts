import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import { createFileLogger, serviceLogFile } from '../../server/log-file.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/test-server.js';
import { screenshot } from './browser.js';
import { browserForFile, withSignedInPage } from './session.js';
import { advanceUntil, UI_TIMERS } from './ui-clock.js';

const browser = browserForFile();

describe('an honest dms connection: a dms that does not answer is said so, in plain words', () => {
  let sim: Simulator;
  let server: TestServer;
  before(async () => {
    sim = await startSimulator();
    await sim.close(); // Paperless is not running: its port refuses connections
    server = await startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token });
  });
  after(async () => {
    await server?.close();
  });

  it('shows a banner naming the dms and why, on every page; the settings say the same and offer the service log', async () => {
    await withSignedInPage(browser(), server.url, '/jobs', async (ui) => {
      const { page } = ui;
      const banner = page.locator('#dms-down:not([hidden])');
      await banner.waitFor();
      const text = (await banner.textContent()) ?? '';
      assert.match(
        text,
        new RegExp(
          `^Paperless at ${sim.url.replace(/[.]/g, '\\.')} does not answer \\(connection refused\\) since \\d{1,2}:\\d{2}( [AP]M)?\\. Is it running`,
        ),
      );
      assert.doesNotMatch(text, /ECONNREFUSED|attempts|GET /);
      await screenshot(page, '40-dms-down');
      await page.click('.topbar nav a[href="/settings"]');
      await page.locator('#dms-status-error').waitFor();
      assert.match(
        (await page.locator('#dms-status-error').textContent()) ?? '',
        /^Not connected: Paperless at .* does not answer \(connection refused\)/,
      );
      assert.equal(await page.locator('#dms-down:not([hidden])').count(), 1);
      // "The service log has the details" leads somewhere: the settings offer it as a download.
      createFileLogger(serviceLogFile(server.dataDir)).warn('dms: GET /api/ connect ECONNREFUSED');
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-log')]);
      assert.equal(download.suggestedFilename(), 'dms-rules-service.log');
      assert.match(fs.readFileSync(await download.path(), 'utf8'), /ECONNREFUSED/);
      assert.deepEqual(
        ui.problems.filter((p) => !/status of 5\d\d/.test(p)),
        [],
      );
    });
  });
});

describe('after the service restarts with another dms, the page says so once it reconnects', () => {
  let sim: Simulator | undefined;
  let second: TestServer | undefined;
  after(async () => {
    await second?.close();
    await sim?.close();
  });

  it('the header badge and the demo notice follow the dms the service uses now', async () => {
    const dirs = { dataDir: tempDir(), rulesDir: tempDir() };
    const first = await startTestServer({}, dirs); // the demo dms
    await withSignedInPage(browser(), first.url, '/jobs', async (ui) => {
      const { page } = ui;
      await page.locator('#demo-banner:not([hidden])').waitFor();
      assert.equal(await page.locator('#dms-badge').textContent(), 'demo dms');

      // The service stops; the page notices (every request fails) and waits for it.
      const port = Number(new URL(first.url).port);
      await first.close();
      await page.route('**/api/**', (route) => route.abort('connectionrefused'));
      await advanceUntil(page, page.locator('#offline-banner'), UI_TIMERS.jobsRefresh); // the jobs list's next read fails
      // It comes back on the same address with the same data, now with a Paperless configured.
      sim = await startSimulator();
      second = await startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token }, { ...dirs, port });
      await page.unroute('**/api/**');
      await advanceUntil(page, page.locator('#offline-banner'), UI_TIMERS.reconnect, 'detached');
      await page.locator('#dms-badge', { hasText: new URL(sim.url).host }).waitFor();
      assert.equal(await page.locator('#demo-banner').isHidden(), true);
      assert.deepEqual(
        ui.problems.filter((p) => !/ERR_CONNECTION_REFUSED|Failed to fetch|status of 5\d\d/.test(p)),
        [],
      );
    });
  });
});

describe('a Paperless with one web worker: the settings say how many requests a run-all keeps at it', () => {
  let sim: Simulator;
  let server: TestServer;
  before(async () => {
    sim = await startSimulator();
    server = await startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token, SVC_DMS_WORKERS: '1' });
  });
  after(async () => {
    await server?.close();
    await sim?.close();
  });

  it('says the configured worker and one more request waiting', async () => {
    await withSignedInPage(browser(), server.url, '/settings', async ({ page }) => {
      const line = page.locator('#dms-status-concurrency');
      await line.waitFor();
      assert.equal(
        await line.textContent(),
        'A run-all keeps 2 requests at Paperless at most: one for its one web worker (SVC_DMS_WORKERS) and one waiting, so a click in Paperless waits behind no more of them.',
      );
    });
  });
});
