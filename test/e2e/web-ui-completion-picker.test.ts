import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startSignedIn, type UiSession } from './session.js';
import { advanceUntil, UI_TIMERS, useClock } from './ui-clock.js';

const editor = (page: Page) => page.locator('.cm-content');

async function completionLabels(page: Page, label: string): Promise<string[]> {
  await page.locator('.cm-tooltip-autocomplete li', { hasText: label }).first().waitFor();
  return page.locator('.cm-tooltip-autocomplete li .cm-completionLabel').allTextContents();
}

// Completion of names with spaces in Liquid and of half-typed YAML; the document picker before and while typing.
describe('completion and the document picker', () => {
  let session: UiSession;
  let page: Page;

  before(async () => {
    session = await startSignedIn({ ready: '.tree li[data-path="inbox.yml"]' });
    ({ page } = session);
    await page.click('.tree li[data-path="inbox.yml"] a');
    await editor(page).waitFor();
    await useClock(page);
  });
  after(async () => {
    await session?.close();
  });

  async function freshText(text: string): Promise<void> {
    await editor(page).click();
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Backspace');
    await page.keyboard.insertText(text);
  }

  async function accept(label: string): Promise<void> {
    const option = page.locator('.cm-tooltip-autocomplete li', { hasText: label }).first();
    await option.click(); // a click picks exactly this option, whichever is highlighted
  }

  it('inserts a custom field with a space as valid Liquid: doc.custom_fields[\'Fällig am\'] inside a "…" string', async () => {
    await freshText('rules:\n  - id: due-title\n    actions:\n      - set_title: "Due ');
    await page.keyboard.type('{{ doc.custom_fields.F', { delay: 30 });
    const labels = await completionLabels(page, 'doc.custom_fields.Fällig am');
    assert.ok(labels.includes('doc.custom_fields.Fällig am'), labels.join(', '));
    await accept('doc.custom_fields.Fällig am');
    assert.equal(
      await page.locator('.cm-line').last().textContent(),
      `      - set_title: "Due {{ doc.custom_fields['Fällig am']}}`, // the braces closed as typed
    );
  });

  it('keeps completing while a flow mapping is still open', async () => {
    await freshText('rules:\n  - id: open-brace\n    when: {');
    await page.keyboard.type(' corr', { delay: 30 });
    assert.ok((await completionLabels(page, 'correspondent')).includes('correspondent'));
    await accept('correspondent');
    await page.keyboard.type('Tel', { delay: 30 });
    assert.ok((await completionLabels(page, 'Telekom Deutschland GmbH')).includes('Telekom Deutschland GmbH'));
    await page.keyboard.press('Escape');
  });

  it('offers the latest documents when the picker gets the keyboard, and searches from one character', async () => {
    await page.focus('#run-document');
    const options = page.locator('#run-document-results [role=option]');
    await options.nth(1).waitFor();
    const offered = await options.evaluateAll((els: Array<{ getAttribute(n: string): string | null }>) =>
      els.map((e) => Number(e.getAttribute('data-id'))),
    );
    const { documents } = await page.evaluate<{ documents: Array<{ id: number }> }>(
      "fetch('/api/ui/documents?search=').then((r) => r.json())",
    );
    assert.deepEqual(
      offered,
      documents.map((d) => d.id),
      'the latest first, as the service lists them',
    );

    await page.keyboard.type('z');
    await advanceUntil(page, page.locator('#run-document-results:not([hidden]) li').first(), UI_TIMERS.documentPicker);
    const titles = await page.locator('#run-document-results [role=option]').allTextContents();
    assert.ok(titles.length > 0 && titles.every((t) => /z/i.test(t)), titles.join(' | '));
    await page.keyboard.press('Escape');
  });

  it('names a document entered by its id by title in the traces heading', async () => {
    // A real run answers without the title (the editor's dry run carries it): the panel looks it up.
    await page.click('label[for="run-dry"]');
    await page.selectOption('#run-rule', 'scan-title');
    await page.fill('#run-document', '10');
    await page.click('#run-button');
    const heading = page.locator('dialog#run-results[open] h2');
    await heading.waitFor();
    const { titles } = await page.evaluate<{ titles: Record<string, string> }>(
      "fetch('/api/ui/documents/titles?ids=10').then((r) => r.json())",
    );
    assert.ok(titles['10']);
    assert.match(
      (await heading.textContent()) ?? '',
      new RegExp(`for #10 ${titles['10'].replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    );
    const traceTitle = page.locator('dialog#run-results[open] .trace summary .doc-title').first();
    assert.equal(await traceTitle.textContent(), titles['10']);
    await page.keyboard.press('Escape');
  });
});
