import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { screenshot, type UiPage } from './browser.js';
import { startSignedIn, type UiSession } from './session.js';
import { advanceUntil, UI_TIMERS } from './ui-clock.js';

// The demo dms (no SVC_DMS_URL): the document as the dms has it, from a trace, a job and the run panel.
describe('seeing a document: the demo dms page and the document panel', () => {
  let session: UiSession;
  let ui: UiPage;
  let page: Page;

  before(async () => {
    session = await startSignedIn({ ready: '.tree li[data-path="finance/invoices.yml"]' });
    ({ ui, page } = session);
  });
  after(async () => {
    await session?.close();
  });

  async function dryRunDocument(id: number, ruleId = ''): Promise<void> {
    await page.goto('/rules');
    await page.click('.tree li[data-path="finance/invoices.yml"] a');
    await page.locator('.cm-content').waitFor();
    await page.fill('#run-document', String(id));
    await page.selectOption('#run-rule', ruleId);
    await page.click('#run-button');
    await page.locator('dialog#run-results[open] .trace').first().waitFor();
  }

  it('opens the demo dms page of a document from a trace, without a redirect loop', async () => {
    await dryRunDocument(10);
    const link = page.locator('dialog#run-results[open] .trace summary a.dms-doc').first();
    const href = (await link.getAttribute('href')) ?? '';
    assert.match(href, /^http:\/\/127\.0\.0\.1:\d+\/documents\/10\/details$/);
    // The demo dms listens on its own loopback port: let this page reach it too.
    const dmsOrigin = new URL(href).origin;
    ui.allowOrigin(dmsOrigin);
    const [popup] = await Promise.all([page.waitForEvent('popup'), link.click()]);
    await popup.locator('h1', { hasText: 'Telekom Rechnung März 2025' }).waitFor();
    assert.equal(new URL(popup.url()).pathname, '/documents/10/details');
    assert.match((await popup.locator('pre').textContent()) ?? '', /Telekom/);
    // The sign-in page every unknown path redirects to answers too, instead of redirecting to itself.
    const signIn = await popup.goto(`${dmsOrigin}/dashboard`);
    assert.equal(signIn?.status(), 200);
    assert.equal(new URL(popup.url()).pathname, '/accounts/login/');
    await popup.close();
    await page.keyboard.press('Escape');
    assert.deepEqual(ui.problems, []);
    await screenshot(page, '20-demo-document');
  });

  it('opens the document panel from a trace: fields in names, money one way, before and after, matches marked in the text', async () => {
    await dryRunDocument(10, 'invoice-de');
    const trace = page.locator('dialog#run-results[open] .trace').first();
    // The trace names the document by its title, never a bare number.
    assert.equal(await trace.locator('summary button.doc-open .doc-title').textContent(), 'Telekom Rechnung März 2025');
    // Money reads one way in the trace: the extraction's description and the diff, never {"amount": …}.
    const traceText = (await trace.textContent()) ?? '';
    assert.doesNotMatch(traceText, /"amount"|\{"/);
    assert.match(
      (await trace.locator('.conditions li', { hasText: 'extract total' }).textContent()) ?? '',
      /→ EUR 39\.95/,
    );
    await trace.locator('summary button.doc-open').click();
    const panel = page.locator('dialog#document-panel[open]');
    await panel.locator('table.doc-fields').first().waitFor();
    assert.equal(await trace.getAttribute('open'), '', 'the click opened the panel without closing the trace');
    assert.equal(await panel.locator('#document-panel-title').textContent(), 'Telekom Rechnung März 2025 #10');
    assert.match((await panel.locator('#document-panel-dms').getAttribute('href')) ?? '', /\/documents\/10\/details$/);
    // A dry run: before is the dms now, after what the rule would write, side by side.
    assert.match((await panel.locator('#doc-compare-note').textContent()) ?? '', /nothing was written/);
    const betrag = panel.locator('tr[data-field="custom_fields.Betrag"]');
    assert.equal(await betrag.getAttribute('data-changed'), 'true');
    assert.equal((await betrag.locator('td').nth(0).textContent())?.trim(), 'not attached');
    assert.equal((await betrag.locator('td').nth(1).textContent())?.trim(), 'EUR 39.95');
    const tags = panel.locator('tr[data-field="tags"]');
    assert.ok((await tags.locator('td').nth(1).locator('.chip', { hasText: 'Rechnung' }).count()) > 0);
    assert.equal(
      (await panel.locator('tr[data-field="correspondent"] td').first().textContent())?.trim(),
      'Telekom Deutschland GmbH',
    );
    assert.ok((await panel.locator('tr[data-field="owner"]').count()) === 1);
    // The rules' patterns marked in the text, each rule in the legend.
    await panel.locator('.hl-legend li', { hasText: 'invoice-de' }).waitFor();
    const marks = await panel.locator('pre.doc-text mark[data-rules~="invoice-de"]').allTextContents();
    // Overlapping matches (a condition inside an extraction) are cut into pieces: read them joined.
    const marked = marks.join('');
    assert.match(marked, /Rechnungsnummer: T-0417-2025-03/);
    assert.match(marked, /Rechnungsbetrag\s+39,95/);
    await screenshot(page, '21-document-panel');
    // Escape closes the drawer only; the trace panel behind it stays.
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    assert.equal(await page.locator('dialog#run-results[open]').count(), 1);
    // The run panel offers the same document as before → after.
    await page.keyboard.press('Escape');
    await page.locator('.run-results .run-document button.doc-open').click();
    await page.locator('dialog#document-panel[open] tr[data-field="custom_fields.Betrag"][data-changed]').waitFor();
    await page.keyboard.press('Escape');
    assert.deepEqual(ui.problems, []);
  });

  it('strikes out under Before only the tags that go: a tag on both sides reads as kept', async () => {
    await page.goto('/rules');
    await page.click('.tree li[data-path="inbox.yml"] a');
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Backspace');
    await page.keyboard.insertText('rules:\n  - id: tax-too\n    actions:\n      - add_tags: [Steuer]\n');
    await page.selectOption('#run-rule', 'tax-too');
    await page.fill('#run-document', '10'); // tagged Posteingang and Rechnung
    await page.click('#run-button');
    await page.locator('dialog#run-results[open] .trace').first().waitFor();
    await page.keyboard.press('Escape');
    await page.locator('.run-results .run-document button.doc-open').click();
    const tags = page.locator('dialog#document-panel[open] tr[data-field="tags"][data-changed]');
    await tags.waitFor();
    const before = await tags.locator('td').nth(0).locator('.chip').allTextContents();
    const after = await tags.locator('td').nth(1).locator('.chip').allTextContents();
    assert.deepEqual([...before].sort(), ['Posteingang', 'Rechnung']);
    assert.deepEqual(await tags.locator('td').nth(0).locator('del .chip').allTextContents(), []);
    assert.deepEqual(await tags.locator('td').nth(1).locator('ins .chip').allTextContents(), ['Steuer']);
    assert.ok(after.includes('Rechnung'));
    await page.keyboard.press('Escape');
    await page.locator('dialog#document-panel[open]').waitFor({ state: 'detached' });
  });

  it('names documents by title in the job report, the undo report and the trace list; undo traces read as undo', async () => {
    await page.goto('/rules');
    await page.click('.tree li[data-path="finance/invoices.yml"] a');
    await page.locator('.cm-content').waitFor();
    await page.selectOption('#run-rule', 'invoice-de');
    await page.click('#run-all-button');
    const dry = page.locator('.run-jobs .job-panel').first();
    await advanceUntil(page, dry.locator('button', { hasText: 'Apply for real' }), UI_TIMERS.jobPoll);
    const sampleTitles = await dry.locator('.job-report .sample-doc .doc-title').allTextContents();
    assert.ok(
      sampleTitles.length > 0 && sampleTitles.every((t) => t.length > 0 && !/^#?\d+$/.test(t)),
      sampleTitles.join(','),
    );
    await dry.locator('button', { hasText: 'Apply for real' }).click();
    await page.click('#confirm-yes');
    const real = page.locator('.run-jobs > .job-panel:first-child[data-status="done"]');
    await advanceUntil(page, real.locator('h3', { hasText: /: Run of invoice-de/ }), UI_TIMERS.jobPoll);
    await real.locator('button', { hasText: 'Undo these changes' }).click();
    await page.click('#confirm-yes');
    const undo = page.locator('.run-jobs > .job-panel:first-child[data-status="done"]');
    await advanceUntil(page, undo.locator('h3', { hasText: /: Undo of job/ }), UI_TIMERS.jobPoll);
    const undoTitles = await undo.locator('.job-report .sample-doc .doc-title').allTextContents();
    assert.ok(undoTitles.length > 0, 'the undo report lists what it restored');
    assert.deepEqual(
      undoTitles.filter((t) => t === '' || /^(Document )?#?\d+$/.test(t)),
      [],
    );
    await screenshot(page, '22-undo-report');
    const undoId = Number(await undo.getAttribute('data-event-id'));
    const realId = Number(await page.locator('.run-jobs > .job-panel').nth(1).getAttribute('data-event-id'));

    await page.goto(`/traces?event_id=${undoId}`);
    const traces = page.locator('.traces-host .trace');
    await traces.first().waitFor();
    assert.equal(
      await traces.locator('summary button.doc-open .doc-title', { hasText: /^Document \d+$/ }).count(),
      0,
      'every trace names its document',
    );
    const first = traces.first();
    assert.equal(await first.locator('summary .badge').first().textContent(), 'restored');
    assert.match(
      (await first.locator('summary .undo-line').textContent()) ?? '',
      new RegExp(`^undo of job #${realId}: set .*back to`),
    );
    await first.locator('summary').click();
    assert.equal(await first.locator('.extracted').count(), 0, 'reverts_event is not shown as an extracted value');
    assert.equal(await first.locator('h4', { hasText: 'Restored' }).count(), 1);
    assert.doesNotMatch((await page.locator('.traces-host').textContent()) ?? '', /\{"amount"|reverts_event/);
    await screenshot(page, '23-undo-traces');

    await page.goto('/traces');
    await traces.first().waitFor();
    assert.equal(
      await traces.locator('summary button.doc-open .doc-title', { hasText: /^Document \d+$/ }).count(),
      0,
      'titles in the unfiltered list too',
    );
    assert.deepEqual(ui.problems, []);
  });
});
