import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN, startTestServer, type TestServer } from '../helpers/test-server.js';
import { launchBrowser, openPage, screenshot, type TestBrowser } from './browser.js';

describe('sign-in throttling in the Web UI', () => {
  let server: TestServer;
  let browser: TestBrowser;
  before(async () => {
    server = await startTestServer();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('says when to try again after too many failed sign-ins (429 with Retry-After)', async () => {
    const { page, problems, context } = await openPage(browser, server.url);
    await page.goto('/login');
    let message = '';
    for (let attempt = 0; attempt < 12 && !/Too many/.test(message); attempt++) {
      await page.fill('#login-user', ADMIN.username);
      await page.fill('#login-password', `wrong ${attempt}`);
      await page.click('form.login-card button[type=submit]');
      await page.locator('#login-status:not([hidden])').waitFor();
      await page.locator('form.login-card button[type=submit]:not([disabled])').waitFor();
      message = (await page.locator('#login-status').textContent()) ?? '';
    }
    assert.match(
      message,
      /^Too many sign-in attempts from this address\. Try again in \d+ (seconds|minutes) \(at .+\)\.$/,
    );
    await screenshot(page, '09-login-throttled');
    assert.deepEqual(
      problems.filter((p) => !/status of 429/.test(p)),
      [],
    );
    await context.close();
  });
});
