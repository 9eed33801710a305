import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { UiPage } from './browser.js';
import { startSignedIn, type UiSession } from './session.js';

// Four problems of four kinds in four rules (dms name, template, regex, schema): the list shows them all at once,
// each underlined on its own word.
const FOUR_PROBLEMS = [
  'rules:',
  '  - id: unknown-field',
  '    when: { custom_fields.Unbekannt: { exists: true } }',
  '  - id: template-typo',
  '    actions:',
  '      - set_title: "Rechnung {{ doc.titel }}"',
  '  - id: bad-regex',
  '    when: { content: { matches: "(" } }',
  '  - id: misspelt-key',
  '    whenn: { title: { contains: x } }',
  '',
].join('\n');

const cspViolations = (ui: UiPage) => ui.problems.filter((p) => /CSP violation|Content Security Policy/i.test(p));

describe('the problems list and the strict CSP in the browser', () => {
  let session: UiSession;
  let ui: UiPage;
  let page: Page;

  before(async () => {
    session = await startSignedIn(); // the demo dms: its custom fields are known, "Unbekannt" is not
    ({ ui, page } = session);
    fs.writeFileSync(path.join(session.server.rulesDir, 'problems.yml'), FOUR_PROBLEMS);
    await page.evaluate("fetch('/api/reload', { method: 'POST' })");
    await page.goto('/rules');
  });
  after(async () => {
    await session?.close();
  });

  it('lists every problem of the file at once and underlines exactly the key or name', async () => {
    await page.click('.tree li[data-path="problems.yml"] a');
    const items = page.locator('#problems .problem.error');
    await items.nth(3).waitFor();
    const texts = await items.allTextContents();
    assert.equal(texts.length, 4, texts.join('\n'));
    assert.match(texts[0], /^✗ Line 3, column 13: the dms has no custom field "Unbekannt"/);
    assert.match(texts[1], /^✗ Line 6, column 33: rule "template-typo": template names "doc.titel"/);
    assert.match(texts[2], /^✗ Line 8, column 33: rule "bad-regex": invalid regular expression/);
    assert.match(texts[3], /^✗ Line 10, column 5: rule "misspelt-key": unknown key "whenn"; did you mean "when"\?/);
    const underlined = await page.locator('.cm-lintRange-error').allTextContents();
    assert.deepEqual(underlined, ['custom_fields.Unbekannt', 'doc.titel', '"("', 'whenn']);

    // A click on a problem puts the cursor on its line.
    await items.nth(2).click();
    await page.locator('.cm-editor.cm-focused').waitFor();
    assert.match((await page.locator('.cm-activeLine').textContent()) ?? '', /matches: "\("/);
  });

  it('breaks no Content Security Policy rule on any screen', async () => {
    for (const screen of ['/rules', '/traces', '/jobs', '/settings']) {
      await page.goto(screen);
      await page.locator('main h1, main h2').first().waitFor();
    }
    // The editor, a dry run's traces dialog and the document panel over it.
    await page.goto('/rules');
    await page.click('.tree li[data-path="finance/invoices.yml"] a');
    await page.locator('.cm-content').waitFor();
    await page.fill('#run-document', '10');
    await page.selectOption('#run-rule', 'invoice-de');
    await page.click('#run-button');
    const trace = page.locator('dialog#run-results[open] .trace').first();
    await trace.waitFor();
    await trace.locator('summary button.doc-open').click();
    await page.locator('dialog#document-panel[open]').waitFor();
    assert.deepEqual(cspViolations(ui), []);
    assert.deepEqual(ui.problems, [], ui.problems.join('\n'));
  });
});
