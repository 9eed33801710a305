import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startSignedIn, type UiSession } from './session.js';

const RULE =
  'rules:\n  - id: urgent-first\n    when:\n      tags: { any: [urgent] }\n    actions:\n      - add_tags: [Steuer]\n';

// The demo dms has no Paperless screens: a condition on a tag it lacks offers to create the tag there.
describe('a name the demo dms lacks, created from the problem that names it', () => {
  let session: UiSession;
  let page: Page;

  before(async () => {
    session = await startSignedIn({ ready: '.tree li[data-path="inbox.yml"]' });
    ({ page } = session);
  });
  after(async () => {
    await session?.close();
  });

  it('offers "Create tag “urgent” in the demo dms" on the save error, and the rule saves after it', async () => {
    await page.click('.tree li[data-path="inbox.yml"] a');
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Backspace');
    await page.keyboard.insertText(RULE);
    await page.click('#save-button');
    const fix = page.locator('#problems .demo-name-fix', { hasText: 'Create tag “urgent” in the demo dms' });
    await fix.waitFor();
    assert.equal(await page.locator('#problems .problem.error', { hasText: 'the dms has no tag "urgent"' }).count(), 1);

    await fix.click();
    await page.locator('#save-state', { hasText: 'Created tag “urgent” in the demo dms.' }).waitFor();
    await page.locator('#problems .problem.error').first().waitFor({ state: 'detached' });
    await page.click('#save-button');
    await page.locator('#save-state', { hasText: /Published/ }).waitFor();
    const { tags } = await page.evaluate<{ tags: string[] }>(
      "fetch('/api/ui/schema').then((r) => r.json()).then((s) => ({ tags: s.vocabulary.dms.tags }))",
    );
    assert.ok(tags.includes('urgent'), tags.join(', '));
    assert.deepEqual(session.ui.problems, []);
  });
});
