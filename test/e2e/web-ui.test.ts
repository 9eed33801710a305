import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import { ADMIN, startTestServer, type TestServer, WITH_EXAMPLES } from '../helpers/test-server.js';
import { launchBrowser, openPage, screenshot, type TestBrowser, type UiPage } from './browser.js';
import { advanceUntil, UI_TIMERS, useClock } from './ui-clock.js';

// One admin session walks through the daily work in order: each step builds on the one before.
const RULE_WITH_TYPO =
  'rules:\n  - id: telekom-tax\n    description: Telekom bills are tax relevant\n    when:\n      ';
const FIXED_RULE = [
  'rules:',
  '  - id: telekom-tax',
  '    description: Telekom bills are tax relevant',
  '    when:',
  '      correspondent: Telekom Deutschland GmbH',
  '    actions:',
  '      - add_tags: [Steuer]',
  '',
].join('\n');

const editor = (page: Page) => page.locator('.cm-content');
const lines = (page: Page) => page.locator('.cm-line');

async function waitForCompletion(page: Page, label: string): Promise<string[]> {
  const option = page.locator('.cm-tooltip-autocomplete li', { hasText: label }).first();
  await option.waitFor();
  return page.locator('.cm-tooltip-autocomplete li .cm-completionLabel').allTextContents();
}

describe('the Web UI against the real service and the dms simulator', () => {
  let sim: Simulator;
  let server: TestServer;
  let browser: TestBrowser;
  let ui: UiPage;
  let page: Page;

  before(async () => {
    sim = await startSimulator();
    server = await startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token }, {}, WITH_EXAMPLES);
    browser = await launchBrowser();
    ui = await openPage(browser, server.url);
    page = ui.page;
    page.setDefaultTimeout(60_000);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await sim?.close();
  });

  it('refuses a wrong password with a clear message, then signs in and shows the user', async () => {
    await page.goto('/rules');
    await page.waitForURL(/\/login\?next=%2Frules$/);
    await page.fill('#login-user', ADMIN.username);
    await page.fill('#login-password', 'not the password');
    await page.click('form.login-card button[type=submit]');
    await assert.doesNotReject(page.locator('#login-status', { hasText: 'Wrong user name or password' }).waitFor());
    await screenshot(page, '01-login-refused');
    // By keyboard alone: the user name field, Tab to the password, Enter to sign in.
    await page.focus('#login-user');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement && document.activeElement.id'), 'login-password');
    await page.keyboard.press('Control+a');
    await page.keyboard.type(ADMIN.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/rules$/);
    assert.equal(await page.locator('#current-user').textContent(), ADMIN.username);
    // The example rules are listed, packages as folders, vars files marked.
    await page.locator('.tree li[data-path="finance/invoices.yml"]').waitFor();
    assert.equal(await page.locator('.tree li[data-path="_vars.yml"] .tag.vars').count(), 1);
  });

  it('checks a new file name in the browser, then creates the file and opens it', async () => {
    // A name without an extension is completed to .yml (a unit test holds that); another extension is refused.
    await page.fill('#new-file-name', 'telekom.txt');
    await page.click('form.new-file button');
    assert.match((await page.locator('#new-file-status').textContent()) ?? '', /must end in \.yml/);
    await page.fill('#new-file-name', '../outside.yml');
    await page.click('form.new-file button');
    assert.match(
      (await page.locator('#new-file-status').textContent()) ?? '',
      /empty or start with a dot|package folder/,
    );
    await page.fill('#new-file-name', 'finance/telekom.yml');
    await page.click('form.new-file button');
    await page.waitForURL(/\/rules\/[A-Za-z0-9_-]+$/);
    await page.locator('.tree li[data-path="finance/telekom.yml"] a[aria-current="page"]').waitFor();
    assert.equal(await page.locator('#editor-title').textContent(), 'finance/telekom.yml');
    // A new file starts from a short commented template (unsaved until the person keeps it).
    await page.locator('.cm-line', { hasText: '# Rules in this file run in order' }).waitFor();
    await editor(page).click();
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Backspace');
  });

  it("completes keys from the schema and the dms's real names while typing", async () => {
    await useClock(page);
    await editor(page).click();
    await page.keyboard.insertText(RULE_WITH_TYPO);
    await page.keyboard.type('corr', { delay: 30 });
    const keys = await waitForCompletion(page, 'correspondent');
    assert.ok(keys.includes('correspondent'), keys.join(', '));
    // CodeMirror ignores Enter for 75 ms (by Date.now) after the list opens: move the page's clock past that.
    await page.clock.fastForward(150);
    await page.keyboard.press('Enter');
    await page.keyboard.type('Teleko', { delay: 30 });
    const names = await waitForCompletion(page, 'Telekom Deutschland GmbH');
    assert.ok(names.includes('Telekom Deutschland GmbH'), names.join(', '));
    await screenshot(page, '02-completion');
    await page.clock.fastForward(150);
    await page.keyboard.press('Enter');
    assert.equal(await lines(page).nth(4).textContent(), '      correspondent: Telekom Deutschland GmbH');
    // An action name with a typo on line 7.
    await page.keyboard.insertText('\n    actions:\n      - add_tag: [Steuer]\n');
  });

  it('shows a validation error at its line and column when saving with Ctrl-S', async () => {
    await page.keyboard.press('Control+s');
    // The save's answer replaces what the autosave's check of earlier text listed (the half-typed "Teleko").
    await page.locator('#save-state', { hasText: /not published/ }).waitFor();
    await page.locator('#problems .problem.error[data-line="7"]').waitFor();
    const problem = page.locator('#problems .problem.error').first();
    assert.match((await problem.textContent()) ?? '', /^✗ Line 7, column \d+: .*add_tag/);
    assert.equal(await problem.getAttribute('data-line'), '7');
    const marked = lines(page).nth(6).locator('.cm-lintRange-error');
    await marked.waitFor();
    assert.match((await marked.textContent()) ?? '', /add_tag/);
    assert.match((await page.locator('#save-state').textContent()) ?? '', /not published/);
    await screenshot(page, '03-validation-error');
  });

  it('publishes the fixed file: no problems, no draft, its rule offered in the run panel', async () => {
    await editor(page).click();
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Backspace');
    await page.keyboard.insertText(FIXED_RULE);
    await page.keyboard.press('Control+s');
    await page.locator('#save-state', { hasText: /^Published/ }).waitFor();
    assert.equal(await page.locator('#problems .problem.error').count(), 0);
    await page.locator('.tree li[data-path="finance/telekom.yml"]:not(:has(.tag.draft))').waitFor();
    assert.equal(await page.locator('#run-rule').inputValue(), 'telekom-tax');
  });

  it('autosaves a draft while typing, reopens it after a reload, and discards it', async () => {
    await editor(page).click();
    await page.keyboard.press('Control+End');
    await page.keyboard.insertText('# draft note\n');
    await advanceUntil(
      page,
      page.locator('#save-state', { hasText: 'Draft saved, not published' }),
      UI_TIMERS.autosave,
    );
    await page.locator('.tree li[data-path="finance/telekom.yml"] .tag.draft').waitFor();
    await page.reload();
    await page.locator('.editor-pane .banner', { hasText: 'unpublished draft' }).waitFor();
    assert.equal(await page.locator('.tree li[data-path="finance/telekom.yml"] .tag.draft').count(), 1);
    assert.equal(await lines(page).nth(7).textContent(), '# draft note');
    await page.click('#discard-button');
    await page.click('#confirm-yes'); // the app's own question
    await page.locator('#save-state', { hasText: /^Published/ }).waitFor();
    assert.equal(await page.locator('.cm-line', { hasText: '# draft note' }).count(), 0);
    await page.locator('.tree li[data-path="finance/telekom.yml"]:not(:has(.tag.draft))').waitFor();
  });

  it("dry-runs the editor's unsaved text on a document found by title, in a wide trace panel", async () => {
    assert.equal(await page.locator('#run-dry').isChecked(), true, 'dry run is on by default');
    // An edit that is not saved: the dry run must run it, not the published file.
    await editor(page).click();
    await page.keyboard.press('Control+End');
    await page.keyboard.insertText('      - set_title: "Telekom unsaved edit"\n');
    await page.fill('#run-document', 'Telekom Rechnung Feb');
    const hit = page.locator('#run-document-results [role=option]', { hasText: 'Telekom Rechnung Februar 2025' });
    await advanceUntil(page, hit, UI_TIMERS.documentPicker);
    await hit.click();
    assert.equal(await page.locator('#run-document').inputValue(), '2');
    const patchesBefore = sim.counts()['PATCH /api/documents/{id}/'] ?? 0;
    await page.click('#run-button');
    const panel = page.locator('dialog#run-results[open]');
    const trace = panel.locator('.trace').first();
    await trace.waitFor();
    assert.match(
      (await panel.locator('#run-ran').textContent()) ?? '',
      /^Ran (the editor's unsaved text|the saved draft \(not published\)) of finance\/telekom\.yml/,
    );
    assert.equal(await trace.locator('summary .badge').first().textContent(), 'matched');
    assert.match(
      (await trace.locator('summary').textContent()) ?? '',
      /telekom-tax.*Telekom Rechnung Februar 2025 #2.*dry run/,
    );
    assert.match(
      (await trace.locator('summary a.dms-doc').getAttribute('href')) ?? '',
      new RegExp(`^${sim.url}/documents/2/details$`),
    );
    const condition = trace.locator('.conditions li.pass').first();
    assert.match((await condition.textContent()) ?? '', /✓.*correspondent.*Telekom Deutschland GmbH/);
    assert.equal(await trace.locator('table.diff ins', { hasText: 'Steuer' }).count(), 1);
    assert.equal(
      await trace.locator('table.diff ins', { hasText: 'Telekom unsaved edit' }).count(),
      1,
      'the unsaved action ran',
    );
    assert.match(
      (await trace.locator('a.rule-link').getAttribute('href')) ?? '',
      /^\/rules\/[A-Za-z0-9_-]+\?rule=telekom-tax$/,
    );
    assert.equal(sim.counts()['PATCH /api/documents/{id}/'] ?? 0, patchesBefore, 'a dry run writes nothing');
    for (const width of [1440, 1024]) {
      await page.setViewportSize({ width, height: 900 });
      const box = await panel.boundingBox();
      assert.ok(box && box.width >= width * 0.85, `the trace panel is wide at ${width} px: ${box?.width}`);
      const overflow = Number(
        await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'),
      );
      assert.ok(overflow <= 0, `${overflow}px of sideways scrolling at ${width} px`);
      // The before → after table reads in whole words: its value column is far wider than a letter.
      const cell = await trace.locator('table.diff tbody td').last().boundingBox();
      assert.ok(cell && cell.width > 200, `diff cell ${cell?.width}px wide at ${width} px`);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await screenshot(page, '04-dry-run-trace');
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('runs all rules on a document with a summary first: what matched and the document after every rule', async () => {
    await page.selectOption('#run-rule', '');
    await page.click('#run-button');
    const panel = page.locator('dialog#run-results[open]');
    const summary = panel.locator('.run-summary');
    await summary.waitFor();
    assert.match((await summary.textContent()) ?? '', /\d+ of \d+ rules matched: .*telekom-tax/);
    assert.equal(await summary.locator('table.diff ins', { hasText: 'Steuer' }).count(), 1);
    const [summaryBox, firstTrace] = [await summary.boundingBox(), await panel.locator('.trace').first().boundingBox()];
    assert.ok(summaryBox && firstTrace && summaryBox.y < firstTrace.y, 'the summary comes first');
    await page.setViewportSize({ width: 1440, height: 900 });
    await screenshot(page, '04b-run-summary');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    await page.selectOption('#run-rule', 'telekom-tax');
  });

  it('runs the rule on all documents as a dry job, applies it once, and undoes it: each says what became of it', async () => {
    assert.equal(await page.locator('#run-all-button').textContent(), 'Dry-run this rule on all documents');
    await page.click('label[for="run-dry"]');
    assert.equal(await page.locator('#run-all-button').textContent(), 'Write to all documents (dry report first)');
    await page.click('label[for="run-dry"]');
    await page.click('#run-all-button');
    const dry = page.locator('.job-panel').first();
    await advanceUntil(page, page.locator('.job-panel[data-status="done"]').first(), UI_TIMERS.jobPoll);
    // The job may prefilter through the dms (by correspondent), so it reads fewer than all 12 documents.
    const counts = /done · (\d+) of (\d+) documents · 2 matched · 2 would change · 0 errors/.exec(
      (await dry.locator('.counts').textContent()) ?? '',
    );
    assert.ok(
      counts && counts[1] === counts[2],
      `counts: ${await dry.locator('.counts').textContent()} ${await dry.textContent()}`,
    );
    assert.equal(await dry.locator('progress').getAttribute('value'), counts[1]);
    assert.equal(await dry.locator('progress').getAttribute('max'), counts[2]);
    assert.equal((await dry.locator('.job-report table.diff ins', { hasText: 'Steuer' }).count()) > 0, true);
    await screenshot(page, '05-job-report');
    const steuer = sim.store.objects.tags.find((t) => t.name === 'Steuer')!.id;
    assert.ok(!sim.store.getDocument(2)!.tags.includes(steuer));

    const dryPanel = page.locator(`.job-panel[data-event-id="${await dry.getAttribute('data-event-id')}"]`);
    await dryPanel.locator('button', { hasText: 'Apply for real' }).click();
    await page.click('#confirm-yes'); // the app's own question, not the browser's confirm()
    await advanceUntil(page, dryPanel.locator('.job-links', { hasText: /applied as job #\d+/ }), UI_TIMERS.jobPoll);
    assert.equal(await dryPanel.locator('button', { hasText: 'Apply for real' }).isVisible(), false, 'no second apply');
    await advanceUntil(
      page,
      page.locator('.run-jobs > .job-panel:first-child[data-status="done"] h3', { hasText: /: Run of telekom-tax/ }),
      UI_TIMERS.jobPoll,
    );
    const real = page.locator(
      `.job-panel[data-event-id="${await page.locator('.run-jobs > .job-panel').first().getAttribute('data-event-id')}"]`,
    );
    assert.match((await real.locator('.counts').textContent()) ?? '', /2 changed/);
    assert.ok(sim.store.getDocument(2)!.tags.includes(steuer), 'apply wrote the tag');

    await real.locator('button', { hasText: 'Undo these changes' }).click();
    await page.click('#confirm-yes');
    await advanceUntil(page, real.locator('.job-links', { hasText: /undone by #\d+/ }), UI_TIMERS.jobPoll);
    assert.equal(await real.locator('button', { hasText: 'Undo these changes' }).isVisible(), false);
    await advanceUntil(
      page,
      page.locator('.run-jobs > .job-panel:first-child[data-status="done"] h3', { hasText: /: Undo of job/ }),
      UI_TIMERS.jobPoll,
    );
    assert.ok(!sim.store.getDocument(2)!.tags.includes(steuer), 'undo removed the tag again');
  });

  it('previews a _vars.yml as it is typed', async () => {
    await page.click('.tree li[data-path="_vars.yml"] a');
    await page.waitForSelector('#vars-preview');
    await editor(page).click();
    await page.keyboard.press('Control+End');
    await page.keyboard.insertText('\ne2e_greeting: "{{ \'hallo\' | upcase }} {{ 20 | plus: 22 }}"\n');
    await advanceUntil(
      page,
      page.locator('#vars-preview', { hasText: 'e2e_greeting: HALLO 42' }),
      UI_TIMERS.varsPreview,
    );
    assert.equal(await page.locator('#run-title').count(), 0, 'a vars file has the preview, not the run panel');
    await screenshot(page, '06-vars-preview');
  });

  it('asks before leaving unsaved work, and lists traces newest first with filters', async () => {
    await page.keyboard.type('x');
    let asked = '';
    page.once('dialog', (d) => {
      asked = d.message();
    });
    await page.click('.topbar nav a[href="/traces"]');
    await page.waitForURL(/\/traces/);
    assert.match(asked, /unsaved changes/);
    await page.fill('#filter-rule_id', 'telekom-tax');
    await page.click('form.filters button[type=submit]');
    await page.waitForURL(/rule_id=telekom-tax/);
    // The URL changes in the same task that marks the list busy: wait for the filtered list, not the old one.
    await page.locator('.traces-host[aria-busy="false"]').waitFor();
    const traces = page.locator('.traces-host .trace');
    await traces.first().waitFor();
    const ats = await traces
      .locator('summary time')
      .evaluateAll((els: Array<{ getAttribute(name: string): string | null }>) =>
        els.map((e) => e.getAttribute('datetime') ?? ''),
      );
    assert.ok(ats.length >= 3, `${ats.length} traces`); // the manual dry run and the jobs' matches
    assert.deepEqual([...ats].sort().reverse(), ats, 'newest first');
    assert.equal(await traces.locator('summary .rule', { hasNotText: 'telekom-tax' }).count(), 0);
    await traces.first().locator('summary').click();
    await traces.first().locator('.conditions li').first().waitFor();
    await screenshot(page, '07-traces');
  });

  it('lists the jobs with their outcome and links, and shows a new job without a reload', async () => {
    await page.click('.topbar nav a[href="/jobs"]');
    assert.equal(await page.title(), 'Jobs · dms-rules');
    const rows = page.locator('table.jobs tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 3);
    assert.deepEqual(await rows.locator('td:nth-child(2)').allTextContents(), ['revert', 'job', 'job']);
    assert.deepEqual(await rows.locator('td:nth-child(5) .badge').allTextContents(), ['done', 'done', 'done']);
    assert.equal(await rows.nth(2).locator('td:nth-child(4)').textContent(), 'dry run');
    assert.match((await rows.nth(2).locator('.job-links').textContent()) ?? '', /applied as job #\d+/);
    assert.match((await rows.nth(1).locator('.job-links').textContent()) ?? '', /undone by #\d+/);
    // A job started elsewhere (a script) appears by itself.
    await page.evaluate("fetch('/api/run?rule_id=telekom-tax&dry_run=true', { method: 'POST' })");
    await advanceUntil(page, page.locator('table.jobs tbody tr').nth(3), UI_TIMERS.jobsRefresh);
    await advanceUntil(
      page,
      page.locator('table.jobs tbody tr:first-child[data-status="done"]'),
      UI_TIMERS.jobsRefresh,
    );
    // At 800 px the header words stay whole.
    await page.setViewportSize({ width: 800, height: 800 });
    const heights = await Promise.all(
      (await page.locator('table.jobs th').all()).map(async (th) => (await th.boundingBox())?.height ?? 0),
    );
    assert.ok(Math.max(...heights) < 40, `header heights ${heights.join(', ')}`);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('changes a setting, and shows the ones fixed by environment variables as read-only', async () => {
    await page.click('.topbar nav a[href="/settings"]');
    await page.locator('#settings-webhook_dry_run').waitFor();
    assert.equal(await page.locator('#settings-dms_url').isDisabled(), true, 'SVC_DMS_URL is set in this test');
    await page
      .locator('#dms-status-version', { hasText: 'Connected to Paperless-ngx 3.0.5 (API version 10).' })
      .waitFor();
    assert.equal(await page.locator('#dms-status-forbidden').count(), 0, 'the superuser token may view everything');
    assert.equal(await page.locator('#settings-webhook_dry_run').isChecked(), false);
    await page.click('label[for="settings-webhook_dry_run"]');
    await page.click('form.settings button[type=submit]');
    await page.locator('#settings-status', { hasText: 'Settings saved.' }).waitFor();
    const stored = await page.evaluate(() =>
      fetch('/api/ui/settings').then((r) => r.json() as Promise<{ webhook_dry_run: boolean }>),
    );
    assert.equal(stored.webhook_dry_run, true);
  });

  it('cancels a running job', async () => {
    await page.click('.topbar nav a[href="/rules"]');
    await page.click('.tree li[data-path="finance/telekom.yml"] a');
    await page.locator('#run-rule').waitFor();
    // The dms holds the job's document list until the cancel is in: the job is running when it is cancelled.
    const held = sim.faults.inject({ route: 'GET /api/documents/', kind: 'hold' });
    try {
      await page.click('#run-all-button');
      const panel = page.locator('.run-jobs > .job-panel').first();
      await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST' && /\/api\/events\/\d+\/cancel$/.test(r.url())),
        panel.locator('button', { hasText: 'Cancel' }).click(),
      ]);
      sim.faults.release(held.id);
      await advanceUntil(
        page,
        page.locator('.run-jobs > .job-panel:first-child[data-status="cancelled"]'),
        UI_TIMERS.jobPoll,
      );
      assert.equal(await panel.locator('button', { hasText: 'Cancel' }).isVisible(), false);
      assert.equal(await panel.locator('button', { hasText: 'Apply for real' }).isVisible(), false);
    } finally {
      sim.faults.release(held.id);
    }
  });

  it("shows a broken file's load error in the tree and at its line in the editor", async () => {
    fs.writeFileSync(path.join(server.rulesDir, 'broken.yml'), 'rules:\n  - id: broken\n    when: [unclosed\n');
    await page.evaluate("fetch('/api/reload', { method: 'POST' })");
    await page.goto('/rules');
    const item = page.locator('.tree li[data-path="broken.yml"]');
    await item.locator('.tag.error').waitFor();
    assert.match((await item.locator('.file-error').textContent()) ?? '', /line \d+/i);
    await item.locator('a').click();
    const problem = page.locator('#problems .problem.error').first();
    await problem.waitFor();
    assert.match((await problem.textContent()) ?? '', /^✗ Line \d+/);
    assert.equal(await page.locator('.cm-lint-marker-error').count(), 1);
    assert.match((await page.locator('.editor-pane .error-box').textContent()) ?? '', /did not load/);
  });

  it('fits a narrow window: no sideways scrolling, the editor and run panel stacked', async () => {
    // The page loads afresh at that size (a new browser context would cost as much CPU as this whole test).
    await page.setViewportSize({ width: 760, height: 900 });
    try {
      await page.goto('/rules');
      await page.click('.tree li[data-path="finance/telekom.yml"] a');
      await page.locator('.cm-content').waitFor();
      const overflow = Number(
        await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'),
      );
      assert.ok(overflow <= 0, `${overflow}px of sideways scrolling`);
      const editorBox = await page.locator('.editor-pane').boundingBox();
      const runBox = await page.locator('.run-panel').boundingBox();
      assert.ok(
        editorBox && runBox && runBox.y >= editorBox.y + editorBox.height,
        'the run panel sits below the editor',
      );
      await screenshot(page, '08-narrow');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('signs out, and then the pages ask to sign in again', async () => {
    await page.click('#logout');
    await page.waitForURL(/\/login/);
    await page.goto('/rules');
    await page.waitForURL(/\/login\?next=/);
  });

  it('logged no script errors and no Content-Security-Policy violations', () => {
    assert.deepEqual(ui.problems, [], ui.problems.join('\n'));
  });
});
