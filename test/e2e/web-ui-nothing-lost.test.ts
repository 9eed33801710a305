import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { ADMIN, startTestServer, tempDir, type TestServer } from '../helpers/test-server.js';
import type { UiPage } from './browser.js';
import { browserForFile, openSignedIn, signIn } from './session.js';
import { advanceUntil, UI_TIMERS } from './ui-clock.js';

const FILE = 'keep.yml';
const TEXT = ['rules:', '  - id: keep-me', '    actions:', '      - add_tags: [Steuer]', ''].join('\n');

/** The stored draft of a rule file, read through the page's own session. */
async function draftOf(page: Page, file: string): Promise<string | null> {
  return page.evaluate(async (p) => {
    const list = (await (await fetch('/api/ui/rules')).json()) as {
      files: Array<{ id: string; path: string; has_draft: boolean }>;
    };
    const entry = list.files.find((f) => f.path === p);
    if (!entry?.has_draft) return null;
    return ((await (await fetch(`/api/ui/rules/${entry.id}?draft=true`)).json()) as { content: string }).content;
  }, file);
}

/** Opens the file from the list and puts the cursor at the end of its text. */
async function openAtEnd(page: Page): Promise<void> {
  await page.goto('/rules');
  await page.click(`.tree li[data-path="${FILE}"] a`);
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+End');
}

const line = (page: Page, text: string) => page.locator('.cm-line', { hasText: text });

const browser = browserForFile();

describe('nothing typed in the editor is lost', () => {
  const dirs = { dataDir: tempDir(), rulesDir: tempDir() };
  let server: TestServer;
  let ui: UiPage;
  let page: Page;
  before(async () => {
    fs.writeFileSync(path.join(dirs.rulesDir, FILE), TEXT);
    server = await startTestServer({}, dirs);
    ui = await openSignedIn(browser(), server.url, '/rules');
    page = ui.page;
  });
  after(async () => {
    await ui?.context.close();
    await server?.close();
  });

  it('an expired session brings the sign-in over the page; the text stays and is saved as a draft after', async () => {
    await openAtEnd(page);
    await ui.context.clearCookies(); // the session ends while the page is open
    await page.keyboard.insertText('# typed after the session ended\n');
    const dialog = page.locator('#sign-in-dialog[open]');
    await advanceUntil(page, dialog, UI_TIMERS.autosave);
    assert.match(new URL(page.url()).pathname, /^\/rules\/./, 'the page stays: no jump to the login page');
    assert.equal(await line(page, '# typed after the session ended').count(), 1);
    await page.fill('#relogin-user', ADMIN.username);
    await page.fill('#relogin-password', ADMIN.password);
    await page.click('#sign-in-dialog button[type=submit]');
    await dialog.waitFor({ state: 'detached' });
    await page.locator('#save-state', { hasText: 'Draft saved, not published' }).waitFor();
    assert.match((await draftOf(page, FILE)) ?? '', /# typed after the session ended/);
    // The keyboard is back in the editor (it lives in a shadow root).
    assert.match(
      await page.evaluate<string>("document.activeElement?.shadowRoot?.activeElement?.className ?? ''"),
      /cm-content/,
    );
  });

  it('a reload before the service stored the text opens the file with it, and saves it then', async () => {
    await openAtEnd(page);
    // The service never gets this text before the reload: every draft save is refused on the way.
    await page.route('**/api/ui/rules/*', (route) =>
      route.request().method() === 'PUT' ? route.abort('connectionrefused') : route.continue(),
    );
    await page.keyboard.insertText('# typed before a reload\n');
    await page.reload();
    await line(page, '# typed before a reload').waitFor();
    await page.locator('#save-state', { hasText: 'Unsaved changes' }).waitFor();
    assert.doesNotMatch((await draftOf(page, FILE)) ?? '', /# typed before a reload/);
    await page.unroute('**/api/ui/rules/*');
    await advanceUntil(
      page,
      page.locator('#save-state', { hasText: 'Draft saved, not published' }),
      UI_TIMERS.autosaveRetry,
    );
    assert.match((await draftOf(page, FILE)) ?? '', /# typed before a reload/);
  });

  it('text typed while the service is stopped is there after it restarts and the page loads again', async () => {
    await openAtEnd(page);
    const port = Number(new URL(server.url).port);
    await server.close();
    await page.keyboard.insertText('# typed while the service was stopped\n');
    await advanceUntil(page, page.locator('#offline-banner'), UI_TIMERS.autosave);
    server = await startTestServer({}, { ...dirs, port });
    await page.reload();
    if (new URL(page.url()).pathname === '/login') await signIn(page, new URL(page.url()).searchParams.get('next')!);
    await line(page, '# typed while the service was stopped').waitFor();
    await page.locator('#save-state', { hasText: 'Draft saved, not published' }).waitFor();
    const draft = (await draftOf(page, FILE)) ?? '';
    assert.match(draft, /# typed while the service was stopped/);
    assert.match(draft, /# typed before a reload/);
    assert.deepEqual(
      ui.problems.filter((p) => !/ERR_CONNECTION_REFUSED|Failed to fetch|status of 5\d\d/.test(p)),
      [],
    );
  });
});
