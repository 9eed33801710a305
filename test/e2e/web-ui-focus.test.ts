import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startSignedIn, type UiSession } from './session.js';

const focusedId = (page: Page) => page.evaluate<string>('document.activeElement?.id ?? ""');

describe('focus follows the work', () => {
  let session: UiSession;
  let page: Page;
  before(async () => {
    session = await startSignedIn({ ready: '.tree' });
    ({ page } = session);
  });
  after(async () => {
    await session?.close();
  });

  it('closing the dry-run traces gives the keyboard back to "Run on document"', async () => {
    await page.locator('.tree li:not([data-path$="vars.yml"]) a').first().click();
    await page.locator('#run-button').waitFor();
    await page.fill('#run-document', '1');
    await page.click('#run-button');
    await page.locator('dialog#run-results[open]').waitFor();
    await page.keyboard.press('Escape');
    await page.locator('dialog#run-results[open]').waitFor({ state: 'detached' });
    // The focus moves in the dialog's close event, a task after the dialog closed.
    await page
      .locator('#run-button:focus')
      .waitFor({ timeout: 5000 })
      .catch(() => undefined);
    assert.equal(await focusedId(page), 'run-button');
  });

  it('only status regions announce changes: the page itself is not a live region', async () => {
    assert.equal(await page.locator('#app[aria-live]').count(), 0);
  });
});
