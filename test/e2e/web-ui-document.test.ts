import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ADMIN, startTestServer, type TestServer } from '../helpers/test-server.js';
import { launchBrowser, openPage, screenshot, type UiPage } from './browser.js';

// The demo dms (no SVC_DMS_URL): the document as the dms has it, from a trace, a job and the run panel.
describe('seeing a document: the demo dms page and the document panel', () => {
  let server: TestServer;
  let browser: Browser;
  let ui: UiPage;
  let page: Page;

  before(async () => {
    server = await startTestServer();
    browser = await launchBrowser();
    ui = await openPage(browser, server.url);
    page = ui.page;
    page.setDefaultTimeout(15_000);
    await page.goto('/login?next=%2Frules');
    await page.fill('#login-user', ADMIN.username);
    await page.fill('#login-password', ADMIN.password);
    await page.click('form.login-card button[type=submit]');
    await page.locator('.tree li[data-path="finance/invoices.yml"]').waitFor();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  async function dryRunDocument(id: number, ruleId = ''): Promise<void> {
    await page.goto('/rules');
    await page.click('.tree li[data-path="finance/invoices.yml"] a');
    await page.locator('.cm-content').waitFor();
    await page.fill('#run-document', String(id));
    await page.selectOption('#run-rule', ruleId);
    await page.click('#run-button');
    await page.locator('dialog#run-results[open] .trace').first().waitFor();
  }

  it('opens the demo dms page of a document from a trace, without a redirect loop', async () => {
    await dryRunDocument(10);
    const link = page.locator('dialog#run-results[open] .trace summary a.doc').first();
    const href = (await link.getAttribute('href')) ?? '';
    assert.match(href, /^http:\/\/127\.0\.0\.1:\d+\/documents\/10\/details$/);
    // The demo dms listens on its own loopback port: let this page reach it too.
    const dmsOrigin = new URL(href).origin;
    await ui.context.route(`${dmsOrigin}/**`, (route) => route.continue());
    const [popup] = await Promise.all([page.waitForEvent('popup'), link.click()]);
    await popup.locator('h1', { hasText: 'Telekom Rechnung März 2025' }).waitFor();
    assert.equal(new URL(popup.url()).pathname, '/documents/10/details');
    assert.match((await popup.locator('pre').textContent()) ?? '', /Telekom/);
    // The sign-in page every unknown path redirects to answers too, instead of redirecting to itself.
    const signIn = await popup.goto(`${dmsOrigin}/dashboard`);
    assert.equal(signIn?.status(), 200);
    assert.equal(new URL(popup.url()).pathname, '/accounts/login/');
    await popup.close();
    await page.keyboard.press('Escape');
    assert.deepEqual(ui.problems, []);
    await screenshot(page, '20-demo-document');
  });
});
