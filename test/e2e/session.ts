// The set-up most browser tests share: a fresh test server, Chromium, and one page signed in as the admin.
import { after, before } from 'node:test';
import type { Page } from 'playwright-core';
import { ADMIN, startTestServer, type TestServer, WITH_EXAMPLES } from '../helpers/test-server.js';
import { launchBrowser, openPage, type TestBrowser, type UiPage } from './browser.js';

export interface UiSession {
  server: TestServer;
  browser: TestBrowser;
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
 * One browser handle for the whole test file, each test opening its own context (the Chromium behind it is shared
 * by the files of the process, see browser.ts; `extraArgs` as for launchBrowser). Call it at the top of the file;
 * the browser is there from the file's first `before` on.
 */
export function browserForFile(extraArgs: string[] = []): () => TestBrowser {
  let browser: TestBrowser | undefined;
  before(async () => {
    browser = await launchBrowser(extraArgs);
  });
  after(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('the browser starts in the test file’s first before hook');
    return browser;
  };
}

/**
 * A fresh 1280×800 page on `baseUrl`, signed in and landed on `next`; steps wait up to 60 s each (a loaded machine
 * is slow). The session comes from the sign-in API, as the login form gets it: loading the login page first cost
 * a second of CPU per test, and the form has tests of its own (web-ui.test.ts, web-ui-first-start.test.ts).
 */
export async function openSignedIn(browser: TestBrowser, baseUrl: string, next = '/rules'): Promise<UiPage> {
  const ui = await openPage(browser, baseUrl);
  try {
    ui.page.setDefaultTimeout(60_000);
    const answer = await ui.context.request.post('/api/auth', { data: ADMIN });
    if (!answer.ok()) throw new Error(`signing in answered ${answer.status()}: ${await answer.text()}`);
    await ui.page.goto(next);
    return ui;
  } catch (err) {
    await ui.context.close();
    throw err;
  }
}

/** Runs `body` on a page as openSignedIn gives it, and closes the page's context after, whatever happens. */
export async function withSignedInPage(
  browser: TestBrowser,
  baseUrl: string,
  next: string,
  body: (ui: UiPage) => Promise<void>,
): Promise<void> {
  const ui = await openSignedIn(browser, baseUrl, next);
  try {
    await body(ui);
  } finally {
    await ui.context.close();
  }
}

/**
 * Starts a test server (`env` as for startTestServer), opens a 1280×800 page on it and signs in, landing on
 * `next`; `ready` is a selector to wait for there.
 */
export async function startSignedIn(
  options: { env?: Record<string, string>; next?: string; ready?: string } = {},
): Promise<UiSession> {
  const server = await startTestServer(options.env, {}, WITH_EXAMPLES);
  let browser: TestBrowser | undefined;
  try {
    browser = await launchBrowser();
    const ui = await openSignedIn(browser, server.url, options.next);
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
