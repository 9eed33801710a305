import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import type { UiPage } from './browser.js';
import { startSignedIn, type UiSession } from './session.js';
import { advanceUntil, UI_TIMERS } from './ui-clock.js';

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
  let session: UiSession;
  let ui: UiPage;
  let page: Page;

  before(async () => {
    sim = await startSimulator();
    session = await startSignedIn({ env: { SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token } });
    ({ ui, page } = session);
    fs.writeFileSync(path.join(session.server.rulesDir, 'loop.yml'), WITH_TESTS); // the first test reloads the rules
  });
  after(async () => {
    await session?.close();
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
    await advanceUntil(page, page.locator('#offline-banner'), UI_TIMERS.autosave);
    await advanceUntil(page, page.locator('#save-state', { hasText: 'retrying' }), UI_TIMERS.autosave);
    assert.equal(await page.locator('.cm-line', { hasText: '# typed while offline' }).count(), 1);
    await page.unroute('**/api/**');
    await advanceUntil(page, page.locator('#offline-banner'), UI_TIMERS.reconnect, 'detached');
    await advanceUntil(
      page,
      page.locator('#save-state', { hasText: 'Draft saved, not published' }),
      UI_TIMERS.reconnect,
    );
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
    await advanceUntil(page, page.locator('.jobs-page'), UI_TIMERS.reconnect);
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
