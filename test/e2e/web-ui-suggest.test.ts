import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import { loadLabelledArchive } from '../../tools/paperless-sim/labelled-archive.js';
import { screenshot } from './browser.js';
import { startSignedIn, type UiSession } from './session.js';

// From "Suggest a rule" on the rules page to a draft rule file whose tests pass, on a generated archive.
describe('suggesting a rule in the web UI', () => {
  let sim: Simulator;
  let session: UiSession;
  let page: Page;

  before(async () => {
    sim = await startSimulator();
    loadLabelledArchive(sim.store, 300, { seed: 3 });
    session = await startSignedIn({ env: { SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token } });
    ({ page } = session);
  });
  after(async () => {
    await session?.close();
    await sim?.close();
  });

  it('learns a rule for a tag, shows its figures and documents, and saves it as a draft whose tests pass', async () => {
    await page.click('a.suggest-link');
    await page.waitForURL((url) => url.pathname === '/suggest');
    await page.selectOption('#suggest-kind', 'tag');
    // The names come from the dms.
    await page.locator('#suggest-names option[value="Garten"]').waitFor({ state: 'attached' });
    await page.fill('#suggest-name', 'Garten');
    await page.click('.suggest-form button[type=submit]');
    const card = page.locator('.suggest-card').first();
    await card.waitFor({ timeout: 60_000 });
    assert.match((await card.locator('[data-figure=precision]').textContent()) ?? '', /^\d+\.\d %$/);
    assert.match((await card.locator('.suggest-yaml').textContent()) ?? '', /garten/i);
    await screenshot(page, '40-suggest-candidates');

    // A document it would miss opens in the document panel with the suggested rule's matches marked: the first on
    // this archive is an invoice with an OCR slip, so the rule finds some of its words but not all.
    const ruleId = (await card.getAttribute('data-rule')) ?? '';
    const missed = card.locator('.suggest-docs').nth(1);
    await missed.locator('summary').click();
    await missed.locator('button.doc-open').first().click();
    const panel = page.locator('dialog#document-panel[open]');
    await panel.locator('.hl-legend mark', { hasText: ruleId }).waitFor();
    const marks = panel.locator(`pre.doc-text mark.hl[data-rules="${ruleId}"]`);
    assert.ok((await marks.count()) > 0, 'the words the rule found are marked');
    const words = (await marks.allTextContents()).map((w) => w.toLowerCase());
    const yaml = ((await card.locator('.suggest-yaml').textContent()) ?? '').toLowerCase();
    assert.ok(
      words.every((w) => yaml.includes(w)),
      `every mark is a word of the rule: ${words.join(', ')}`,
    );
    await screenshot(page, '40b-suggest-document-matches');
    await page.keyboard.press('Escape');

    await card.locator('button[data-save-draft]').click();
    await page.waitForURL((url) => url.pathname.startsWith('/rules/'));
    await page.locator(`.tree li[data-path="suggested/${ruleId}.yml"]`).waitFor();
    await page.locator('.cm-content', { hasText: ruleId }).waitFor();
    await page.click('#run-tests-button');
    await page.locator('#test-summary', { hasText: '2 tests: 2 passed' }).waitFor({ timeout: 30_000 });
    await screenshot(page, '41-suggested-draft');
  });
});
