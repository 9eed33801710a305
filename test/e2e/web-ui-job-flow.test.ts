import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { screenshot } from './browser.js';
import { startSignedIn, type UiSession } from './session.js';
import { advanceUntil, UI_TIMERS } from './ui-clock.js';

/** The text of the element that has the keyboard. */
const focusedText = (page: Page) => page.evaluate<string>('document.activeElement?.textContent?.trim() ?? ""');

// Finding one's way: focus after a job's report and apply, the all-rules summary, traces per rule, a job's own page.
describe('the job flow and the ways between rules, traces and jobs', () => {
  let session: UiSession;
  let page: Page;
  let dryJob = 0;
  let realJob = 0;

  before(async () => {
    session = await startSignedIn({ ready: '.tree li[data-path="finance/invoices.yml"]' });
    ({ page } = session);
  });
  after(async () => {
    await session?.close();
  });

  async function openInvoices(): Promise<void> {
    await page.goto('/rules');
    await page.click('.tree li[data-path="finance/invoices.yml"] a');
    await page.locator('.cm-content').waitFor();
  }

  it('puts the keyboard on "Apply for real" after the dry report, and on "Undo these changes" after the apply', async () => {
    await openInvoices();
    await page.selectOption('#run-rule', 'invoice-de');
    await page.click('#run-all-button');
    const dry = page.locator('.run-jobs .job-panel').first();
    const apply = dry.locator('button', { hasText: 'Apply for real' });
    await advanceUntil(page, apply, UI_TIMERS.jobPoll);
    dryJob = Number(await dry.getAttribute('data-event-id'));
    assert.equal(await focusedText(page), 'Apply for real');

    // Keyboard only from here: Enter on Apply asks in the app's own dialog, with the safe answer focused.
    await page.keyboard.press('Enter');
    await page.locator('#confirm-dialog[open]').waitFor();
    assert.equal(await focusedText(page), 'Cancel');
    await page.keyboard.press('Tab');
    assert.equal(await focusedText(page), 'Write the changes');
    await page.keyboard.press('Enter');
    const real = page.locator('.run-jobs > .job-panel:first-child[data-status="done"]');
    await advanceUntil(page, real.locator('h3', { hasText: /: Run of invoice-de/ }), UI_TIMERS.jobPoll);
    realJob = Number(await real.getAttribute('data-event-id'));
    assert.notEqual(realJob, dryJob);
    assert.equal(await focusedText(page), 'Undo these changes');
    // The links between the two read as separate words and lead to each job's page.
    const dryPanel = page.locator(`.run-jobs .job-panel[data-event-id="${dryJob}"]`);
    assert.match(
      (await dryPanel.locator('.job-links').textContent()) ?? '',
      new RegExp(`^applied as job #${realJob}$`),
    );
    assert.match((await real.locator('.job-links').textContent()) ?? '', new RegExp(`^applies dry run #${dryJob}$`));
  });

  it('gives each job a page of its own, wide enough for its report, reached from the jobs table and the job links', async () => {
    await page.goto('/jobs');
    const row = page.locator(`table.jobs tbody tr[data-event-id="${dryJob}"]`);
    await row.locator('a', { hasText: 'Details' }).click();
    await page.waitForURL((url) => url.pathname === `/jobs/${dryJob}`);
    const panel = page.locator(`.job-page .job-panel[data-event-id="${dryJob}"][data-status="done"]`);
    await panel.locator('.job-report table.diff').first().waitFor();
    const width = await panel.evaluate(
      (el: { getBoundingClientRect(): { width: number } }) => el.getBoundingClientRect().width,
    );
    assert.ok(width > 700, `the report has ${width} px`);
    assert.equal(await page.title(), 'Jobs · dms-rules');
    await screenshot(page, '24-job-page');

    await panel.locator('.job-links a', { hasText: `applied as job #${realJob}` }).click();
    await page.waitForURL((url) => url.pathname === `/jobs/${realJob}`);
    const realPanel = page.locator(`.job-page .job-panel[data-event-id="${realJob}"][data-status="done"]`);
    await realPanel.locator('button', { hasText: 'Undo these changes' }).waitFor();
    // Undo from the job page leads to the undo's page, its outcome focused.
    await realPanel.locator('button', { hasText: 'Undo these changes' }).click();
    await page.click('#confirm-yes');
    await page.waitForURL((url) => /^\/jobs\/\d+$/.test(url.pathname) && url.pathname !== `/jobs/${realJob}`);
    const undo = page.locator('.job-page .job-panel[data-status="done"]');
    await advanceUntil(page, undo.locator('h3', { hasText: `Undo of job #${realJob}` }), UI_TIMERS.jobPoll);
    assert.match(await focusedText(page), new RegExp(`Undo of job #${realJob}`));
    // The jobs table names both links of the applied job as separate words.
    await page.goto('/jobs');
    const realRow = page.locator(`table.jobs tbody tr[data-event-id="${realJob}"] .job-links`);
    await realRow.waitFor();
    assert.match((await realRow.textContent()) ?? '', new RegExp(`^applies dry run #${dryJob} · undone by #\\d+$`));
    await page.goBack();
    // A reload of that address shows the same job.
    const url = page.url();
    await page.reload();
    await page.locator('.job-page .job-panel h3', { hasText: `Undo of job #${realJob}` }).waitFor();
    assert.equal(page.url(), url);
  });

  it('shows an all-rules dry run with the matched rules first and open, the rest folded, and links from the summary', async () => {
    await openInvoices();
    await page.fill('#run-document', '2');
    await page.selectOption('#run-rule', '');
    await page.click('#run-button');
    const dialog = page.locator('dialog#run-results[open]');
    await dialog.locator('.trace').first().waitFor();
    const states = await dialog
      .locator('.trace-list > details.trace')
      .evaluateAll((els: Array<{ className: string; hasAttribute(n: string): boolean }>) =>
        els.map((e) => ({
          matched: /status-(matched|error|timeout)\b/.test(e.className),
          open: e.hasAttribute('open'),
        })),
      );
    const firstOther = states.findIndex((s) => !s.matched);
    assert.ok(firstOther > 0 && firstOther < states.length, `matched: ${firstOther} of ${states.length}`);
    assert.ok(
      states.slice(0, firstOther).every((s) => s.open),
      'the matched ones are open',
    );
    assert.ok(
      states.slice(firstOther).every((s) => !s.matched && !s.open),
      'the rest come after, folded',
    );

    // A rule named in the summary opens its trace and takes the keyboard there.
    const link = dialog.locator('.run-summary a.rule-jump').first();
    const ruleId = (await link.textContent()) ?? '';
    await dialog
      .locator(`details.trace[data-rule-id="${ruleId}"]`)
      .evaluate((el: { removeAttribute(n: string): void }) => el.removeAttribute('open'));
    await link.click();
    assert.equal(await dialog.locator(`details.trace[data-rule-id="${ruleId}"][open]`).count(), 1);
    assert.equal(
      await page.evaluate<string>(
        'document.activeElement?.closest("details.trace")?.getAttribute("data-rule-id") ?? ""',
      ),
      ruleId,
    );
    assert.equal(new URL(page.url()).pathname.startsWith('/rules/'), true, 'the link did not navigate');
    await page.keyboard.press('Escape');
  });

  it('leads from each rule of the open file to its traces, filtered to that rule alone', async () => {
    await openInvoices();
    const link = page.locator('.rule-traces a', { hasText: /^invoice-de$/ });
    await link.click();
    await page.waitForURL((url) => url.pathname === '/traces');
    assert.equal(new URL(page.url()).searchParams.get('rule_id'), 'invoice-de');
    assert.equal(await page.locator('#filter-exact').isChecked(), true);
    const rules = page.locator('.traces-host .trace summary .rule');
    await rules.first().waitFor();
    assert.deepEqual([...new Set(await rules.allTextContents())], ['invoice-de']);
  });
});
