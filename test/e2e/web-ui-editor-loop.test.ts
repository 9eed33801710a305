import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import { ADMIN, startTestServer, type TestServer } from '../helpers/test-server.js';
import { launchBrowser, openPage, type UiPage } from './browser.js';

// A file whose second test fails: opening it shows the failure at once; "Run tests" marks it at its line.
const WITH_TESTS = [
  'rules:',
  '  - id: loop-telekom',
  '    when:',
  '      content: { matches: "(?i)rechnung" }',
  '    actions:',
  '      - add_tags: [Steuer]',
  '    tests:',
  '      - document: { content: "Rechnung" }',
  '        expect: { matched: true }',
  '      - document: { content: "Mahnung" }',
  '        expect: { matched: true }',
  '',
].join('\n');

const lines = (page: Page) => page.locator('.cm-line');

describe('the edit → test loop in the browser', () => {
  let sim: Simulator;
  let server: TestServer;
  let browser: Browser;
  let ui: UiPage;
  let page: Page;

  before(async () => {
    sim = await startSimulator();
    server = await startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token });
    fs.writeFileSync(path.join(server.rulesDir, 'loop.yml'), WITH_TESTS);
    browser = await launchBrowser();
    ui = await openPage(browser, server.url);
    page = ui.page;
    page.setDefaultTimeout(15_000);
    await page.evaluate('0');
    await page.goto('/login');
    await page.fill('#login-user', ADMIN.username);
    await page.fill('#login-password', ADMIN.password);
    await page.click('form.login-card button[type=submit]');
    await page.waitForURL(/\/rules$/);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await sim?.close();
  });

  it("shows a file's diagnostics as soon as it opens, then marks each failing test at its line", async () => {
    await page.evaluate("fetch('/api/reload', { method: 'POST' })");
    await page.goto('/rules');
    await page.click('.tree li[data-path="loop.yml"] a');
    const problem = page.locator('#problems .problem.error').first();
    await problem.waitFor(); // no keystroke: the check of the opened text shows it
    assert.match((await problem.textContent()) ?? '', /test 2/);
    await page.click('#run-tests-button');
    await page.locator('#test-summary', { hasText: '2 tests: 1 passed, 1 failed' }).waitFor();
    const failing = page.locator('#problems .problem.error', { hasText: 'loop-telekom' }).first();
    const line = Number(await failing.getAttribute('data-line'));
    assert.match(
      (await lines(page)
        .nth(line - 1)
        .textContent()) ?? '',
      /matched: true/,
    );
    assert.ok(line >= 10, `the second test's expectation (line ${line})`);
    await lines(page)
      .nth(line - 1)
      .locator('.cm-lintRange-error')
      .waitFor();
  });

  it('completes operators inside a flow mapping in the editor', async () => {
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.insertText('  - id: loop-two\n    when:\n      title: { ');
    await page.keyboard.type('sta', { delay: 30 });
    await page.locator('.cm-tooltip-autocomplete li', { hasText: 'starts_with' }).waitFor();
    const offered = await page.locator('.cm-tooltip-autocomplete li .cm-completionLabel').allTextContents();
    assert.ok(!offered.includes('any'), offered.join(','));
    await page.keyboard.press('Escape');
  });

  it('keeps typing safe while the service is unreachable, says so, and saves the draft once it is back', async () => {
    await page.route('**/api/**', (route) => route.abort('connectionrefused'));
    await page.keyboard.insertText(
      'rts_with: Telekom }\n    actions:\n      - add_tags: [Steuer]\n# typed while offline\n',
    );
    await page.locator('#offline-banner').waitFor();
    await page.locator('#save-state', { hasText: 'retrying' }).waitFor();
    assert.equal(await page.locator('.cm-line', { hasText: '# typed while offline' }).count(), 1);
    await page.unroute('**/api/**');
    await page.locator('#offline-banner').waitFor({ state: 'detached' });
    await page.locator('#save-state', { hasText: 'Draft saved, not published' }).waitFor();
    const draft = await page.evaluate(async () => {
      const files = (await (await fetch('/api/ui/rules')).json()) as { files: Array<{ id: string; path: string }> };
      const id = files.files.find((f) => f.path === 'loop.yml')!.id;
      return ((await (await fetch(`/api/ui/rules/${id}?draft=true`)).json()) as { content: string }).content;
    });
    assert.match(draft, /# typed while offline/);
  });

  it('loads a page that failed while the service was away by itself once it is back', async () => {
    await page.route('**/api/**', (route) => route.abort('connectionrefused'));
    await page.goto('/jobs');
    await page.locator('#offline-banner').waitFor();
    assert.equal(await page.locator('table.jobs, .jobs-page .empty-state').count(), 0);
    await page.unroute('**/api/**');
    await page.locator('.jobs-page').waitFor();
    await page.locator('#offline-banner').waitFor({ state: 'detached' });
  });

  it('filters traces by a rule id prefix and by a document title', async () => {
    // loop.yml fails its test, so it is not loaded: a dry run of the editor's text still tries it.
    await page.goto('/rules');
    await page.click('.tree li[data-path="loop.yml"] a');
    await page.fill('#run-document', '2');
    await page.selectOption('#run-rule', 'loop-telekom');
    await page.click('#run-button');
    await page.locator('dialog#run-results[open] .trace').first().waitFor();
    await page.keyboard.press('Escape');
    await page.goto('/traces');
    await page.locator('#filter-rule_id').waitFor();
    assert.equal(await page.title(), 'Traces · dms-rules');
    const traces = page.locator('.traces-host .trace');
    // The unfiltered list first, so the filtered answer below is a replacement, not a race with it.
    await traces.first().waitFor();
    await page.fill('#filter-rule_id', 'loop-');
    await page.fill('#filter-document', 'Telekom Rechnung Feb');
    await page.click('form.filters button[type=submit]');
    await traces
      .locator('summary .doc', { hasNotText: 'Telekom Rechnung Februar 2025' })
      .first()
      .waitFor({ state: 'detached' });
    await traces.first().waitFor();
    assert.ok((await traces.count()) >= 1);
    assert.equal(await traces.locator('summary .rule', { hasNotText: /^loop-/ }).count(), 0);
    assert.equal(await traces.locator('summary .doc', { hasNotText: 'Telekom Rechnung Februar 2025' }).count(), 0);
    assert.deepEqual(
      ui.problems.filter((p) => !/ERR_CONNECTION_REFUSED|Failed to fetch/.test(p)),
      [],
    );
  });
});
