import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ADMIN, startTestServer, type TestServer } from '../helpers/test-server.js';
import { launchBrowser, openPage, screenshot, type UiPage } from './browser.js';
import { layoutProblems } from './layout-checks.js';

const activeId = (page: Page) => page.evaluate('document.activeElement && document.activeElement.id');
const focusInEditor = (page: Page) => page.evaluate("!!(document.activeElement && document.activeElement.closest('.editor-host'))");

// The demo dms (no SVC_DMS_URL), keyboard only where a person would use it, then every window size.
describe('the Web UI by keyboard and at every screen size', () => {
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

  it('opening a file puts the keyboard in the editor', async () => {
    await page.locator('.tree li[data-path="finance/invoices.yml"] a').focus();
    await page.keyboard.press('Enter');
    await page.locator('.cm-content').waitFor();
    await page.waitForFunction("!!(document.activeElement && document.activeElement.closest('.editor-host'))");
    assert.equal(await focusInEditor(page), true);
  });

  it('the document picker points at the highlighted option; Enter picks it, a second Enter runs', async () => {
    await page.focus('#run-document');
    await page.keyboard.type('Telekom Rechnung');
    const options = page.locator('#run-document-results [role=option]');
    await options.nth(1).waitFor();
    const first = await options.nth(0).getAttribute('id');
    assert.equal(await page.getAttribute('#run-document', 'aria-activedescendant'), first);
    assert.equal(await options.nth(0).getAttribute('aria-selected'), 'true');
    await page.keyboard.press('ArrowDown');
    const second = options.nth(1);
    assert.equal(await page.getAttribute('#run-document', 'aria-activedescendant'), await second.getAttribute('id'));
    assert.equal(await activeId(page), 'run-document', 'focus stays in the input');
    const secondId = await second.getAttribute('data-id');
    await page.keyboard.press('Enter');
    assert.equal(await page.inputValue('#run-document'), secondId);
    assert.equal(await page.locator('#run-document-results').isHidden(), true);
    assert.equal(await page.locator('dialog#run-results[open]').count(), 0, 'the first Enter only picks');
    await page.keyboard.press('Enter');
    await page.locator('dialog#run-results[open] .trace, dialog#run-results[open] .empty-state').first().waitFor();
    await page.keyboard.press('Escape');
  });

  it('offers "Dry-run this rule on all documents" only when one rule is chosen', async () => {
    await page.selectOption('#run-rule', '');
    assert.equal(await page.locator('#run-all-button').isDisabled(), true);
    await page.selectOption('#run-rule', 'invoice-de');
    assert.equal(await page.locator('#run-all-button').isDisabled(), false);
    assert.deepEqual(ui.problems, []);
  });
});
