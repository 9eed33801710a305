import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/test-server.js';
import { screenshot, type UiPage } from './browser.js';
import { startSignedIn, type UiSession } from './session.js';
import { advanceUntil, UI_TIMERS } from './ui-clock.js';
import { layoutProblems } from './layout-checks.js';

const activeId = (page: Page) => page.evaluate('document.activeElement && document.activeElement.id');
const focusInEditor = (page: Page) =>
  page.evaluate("!!(document.activeElement && document.activeElement.closest('.editor-host'))");

// The demo dms (no SVC_DMS_URL), keyboard only where a person would use it, then every window size.
describe('the Web UI by keyboard and at every screen size', () => {
  let session: UiSession;
  let server: TestServer;
  let ui: UiPage;
  let page: Page;

  before(async () => {
    session = await startSignedIn({ ready: '.tree li[data-path="finance/invoices.yml"]' });
    ({ server, ui, page } = session);
  });
  after(async () => {
    await session?.close();
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
    await advanceUntil(page, options.nth(1), UI_TIMERS.documentPicker);
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
    await page.click('#run-all-button'); // a job for the jobs table below
    await advanceUntil(page, page.locator('.job-panel[data-status="done"]').first(), UI_TIMERS.jobPoll);
    assert.deepEqual(ui.problems, []);
  });

  async function openFile(): Promise<void> {
    await page.goto('/rules');
    await page.click('.tree li[data-path="finance/invoices.yml"] a');
    await page.locator('.cm-content').waitFor();
  }

  it('at 1024 px the header, file names, editor toolbar and job table keep their words whole', async () => {
    await page.setViewportSize({ width: 1024, height: 800 });
    await openFile();
    assert.deepEqual(await layoutProblems(page, ['.topbar', '.tree a', '.editor-toolbar', '.run-panel .buttons']), []);
    await page.goto('/jobs');
    await page.locator('table.jobs tbody tr').first().waitFor();
    assert.deepEqual(await layoutProblems(page, ['.topbar', 'table.jobs']), []);
    await page.goto('/traces');
    await page.locator('.traces-host .trace').first().waitFor();
    assert.deepEqual(await layoutProblems(page, ['.topbar', '.trace summary']), []);
    await screenshot(page, '30-traces-1024');
  });

  it('at 390 px nothing is wider than the window: jobs become cards, the trace panel reflows, the file list folds away', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/jobs');
    await page.locator('table.jobs tbody tr').first().waitFor();
    assert.deepEqual(await layoutProblems(page, ['.topbar', 'table.jobs']), []);
    await screenshot(page, '31-jobs-390');

    await openFile();
    // The editor is on the first screen: the file list is folded while a file is open, and unfolds on demand.
    assert.equal(await page.locator('details.files-fold').getAttribute('open'), null);
    const editorTop = (await page.locator('.editor-host').boundingBox())?.y ?? Infinity;
    assert.ok(editorTop < 844 * 0.75, `the editor starts at ${editorTop} px`);
    await page.click('details.files-fold > summary');
    await page.locator('.tree li[data-path="finance/invoices.yml"] a').waitFor();
    assert.deepEqual(await layoutProblems(page, ['.topbar', '.tree a']), []);
    await screenshot(page, '32-rules-390');

    await page.fill('#run-document', '1');
    await page.click('#run-button');
    const dialog = page.locator('dialog#run-results[open]');
    await dialog.locator('.trace').first().waitFor();
    assert.deepEqual(await layoutProblems(page, ['.trace summary', 'table.diff th']), []);
    const fits = await dialog.evaluate(
      (d: { scrollWidth: number; clientWidth: number }) => d.scrollWidth <= d.clientWidth,
    );
    assert.equal(fits, true, 'the trace panel does not scroll sideways');
    await screenshot(page, '33-trace-390');
    await dialog.locator('.trace summary button.doc-open').first().click();
    const drawer = page.locator('dialog#document-panel[open]');
    await drawer.locator('table.doc-fields').first().waitFor();
    const drawerBox = await drawer.boundingBox();
    assert.ok(
      drawerBox && drawerBox.width >= 389 && drawerBox.x <= 1,
      `the document panel takes the whole width: ${JSON.stringify(drawerBox)}`,
    );
    assert.equal(
      await drawer.evaluate((d: { scrollWidth: number; clientWidth: number }) => d.scrollWidth <= d.clientWidth),
      true,
    );
    await screenshot(page, '34-document-390');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await page.setViewportSize({ width: 1280, height: 800 });
    assert.deepEqual(ui.problems, []);
  });

  it('keeps the editor toolbar steady: buttons on one line that never move, the status below, a test badge for the text it ran on', async () => {
    const rule = [
      'rules:',
      '  - id: steady',
      '    when:',
      '      title: { contains: Telekom }',
      '    actions:',
      '      - add_tags: [Steuer]',
      '    tests:',
      '      - document: { title: Telekom März }',
      '        expect: { matched: true }',
      '',
    ];
    fs.writeFileSync(path.join(server.rulesDir, 'steady.yml'), rule.join('\n'));
    await page.evaluate("fetch('/api/reload', { method: 'POST' })");
    const buttons = ['#run-tests-button', '#discard-button', '#save-button', '#delete-button'];
    // Measured from the toolbar's own corner: the dms banner above it may come or go meanwhile (on a loaded
    // machine the demo dms's health check can time out once), which moves the whole pane, not the buttons in it.
    const boxes = async () => {
      const toolbar = (await page.locator('.editor-toolbar').boundingBox())!;
      return Promise.all(
        buttons.map(async (b) => {
          const box = (await page.locator(b).boundingBox())!;
          return { ...box, x: box.x - toolbar.x, y: box.y - toolbar.y };
        }),
      );
    };
    for (const width of [1024, 1920]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto('/rules');
      await page.click('.tree li[data-path="steady.yml"] a');
      await page.locator('.cm-content').waitFor();
      const before = await boxes();
      assert.equal(new Set(before.map((b) => Math.round(b.y))).size, 1, `one line of buttons at ${width} px`);
      const [status, first] = await Promise.all(['#save-state', buttons[0]].map((s) => page.locator(s).boundingBox()));
      assert.ok(status!.y > first!.y + first!.height - 1, 'the status has its own line below the buttons');
      await page.keyboard.press('Control+End');
      await page.keyboard.type('# a note');
      await page.locator('#save-state', { hasText: 'Unsaved' }).waitFor();
      assert.deepEqual(await boxes(), before, `no button moved when the text changed (${width} px)`);
      await advanceUntil(page, page.locator('#save-state', { hasText: 'Draft saved' }), UI_TIMERS.autosave);
      assert.deepEqual(await boxes(), before, 'nor when the draft was saved');
    }
    await page.click('#run-tests-button');
    await page.locator('#test-summary', { hasText: '1 test: 1 passed' }).waitFor();
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\n  - id: [broken');
    assert.equal(await page.locator('#test-summary').textContent(), '', 'an edit clears the badge of the old text');
    await page.click('#run-tests-button');
    const summary = page.locator('#test-summary[data-kind="error"]');
    await summary.waitFor();
    // The sound rule's test runs beside the broken one; the badge says the file needs fixing first.
    assert.match((await summary.textContent()) ?? '', /fix the (YAML|error) first \(line \d+\)$/);
    await page.keyboard.press('Control+z');
    await page.keyboard.press('Control+z');
    await page.locator('.cm-line', { hasText: '[broken' }).waitFor({ state: 'detached' });
    await page.click('#save-button');
    await page.locator('#test-summary', { hasText: '1 test: 1 passed' }).waitFor(); // refreshed for the published text
    await screenshot(page, '35-editor-steady');
    // Enter after `when:` indents the next line; two fields under when: are an error that suggests all:.
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.insertText('\n  - id: more\n    when:');
    await page.keyboard.press('Escape'); // no suggestion list in the way of Enter
    await page.keyboard.press('Enter');
    await page.keyboard.insertText('correspondent: Telekom');
    await page.locator('.cm-line', { hasText: 'correspondent: Telekom' }).waitFor();
    assert.equal(
      await page.locator('.cm-line', { hasText: 'correspondent: Telekom' }).textContent(),
      '      correspondent: Telekom',
    );
    await page.keyboard.press('Escape');
    await page.keyboard.press('Enter');
    await page.keyboard.insertText('title: x\n    actions:\n      - add_tags: [Steuer]');
    // Typed text is checked when its draft is saved.
    await advanceUntil(
      page,
      page.locator('#problems .problem.error', { hasText: 'write all: with one item each' }),
      UI_TIMERS.autosave,
    );
    // Completion items say in one line what they are.
    await page.keyboard.insertText('\n  - id: third\n    ');
    await page.keyboard.type('wh', { delay: 30 });
    const option = page.locator('.cm-tooltip-autocomplete li', { hasText: 'when' }).first();
    await option.waitFor();
    assert.match(
      (await option.locator('.cm-completionDetail').textContent()) ?? '',
      /^Which documents the rule is for/,
    );
    await page.keyboard.press('Escape');
  });

  it('validates test documents like rules: a template in a test document is an error at its line', async () => {
    const rule = [
      'rules:',
      '  - id: recent',
      '    when:',
      '      added: { gte: -30d }',
      '    actions:',
      '      - add_tags: [Steuer]',
      '    tests:',
      '      - document: { added: "{{ now }}" }',
      '        expect: { matched: true }',
      '',
    ];
    fs.writeFileSync(path.join(server.rulesDir, 'recent.yml'), rule.join('\n'));
    await page.evaluate("fetch('/api/reload', { method: 'POST' })");
    await page.goto('/rules');
    await page.click('.tree li[data-path="recent.yml"] a');
    await page.locator('.cm-content').waitFor();
    await page.click('#run-tests-button');
    const problem = page.locator('#problems .problem.error', {
      hasText: 'templates are not rendered in test documents',
    });
    await problem.waitFor();
    assert.equal(await problem.getAttribute('data-line'), '8');
    await page.locator('#test-summary', { hasText: '1 test: 0 passed, 1 failed' }).waitFor();
    await page.setViewportSize({ width: 1280, height: 800 });
    assert.deepEqual(ui.problems, []);
  });
});
