// The set-up most browser tests share: a fresh test server, Chromium, and one page signed in as the admin.
import type { Browser, Page } from 'playwright-core';
import { ADMIN, startTestServer, type TestServer, WITH_EXAMPLES } from '../helpers/test-server.js';
import { launchBrowser, openPage, type UiPage } from './browser.js';

export interface UiSession {
  server: TestServer;
  browser: Browser;
  ui: UiPage;
  page: Page;
  /** Closes the browser, then the server. */
  close(): Promise<void>;
}

/** Signs in as the admin from the login page and waits for the page it leads to (`next`). */
export async function signIn(page: Page, next = '/rules'): Promise<void> {
  await page.goto(`/login?next=${encodeURIComponent(next)}`);
  await page.fill('#login-user', ADMIN.username);
  await page.fill('#login-password', ADMIN.password);
  await page.click('form.login-card button[type=submit]');
  await page.waitForURL((url) => url.pathname === next);
}

/**
 * Starts a test server (`env` as for startTestServer), opens a 1280×800 page on it and signs in, landing on
 * `next`; `ready` is a selector to wait for there. Steps wait up to 15 s each (a loaded machine is slow).
 */
export async function startSignedIn(
  options: { env?: Record<string, string>; next?: string; ready?: string } = {},
): Promise<UiSession> {
  const server = await startTestServer(options.env, {}, WITH_EXAMPLES);
  let browser: Browser | undefined;
  try {
    browser = await launchBrowser();
    const ui = await openPage(browser, server.url);
    ui.page.setDefaultTimeout(15_000);
    await signIn(ui.page, options.next);
    if (options.ready) await ui.page.locator(options.ready).waitFor();
    const opened = browser;
    return {
      server,
      browser,
      ui,
      page: ui.page,
      close: async () => {
        await opened.close();
        await server.close();
      },
    };
  } catch (err) {
    await browser?.close();
    await server.close();
    throw err;
  }
}
