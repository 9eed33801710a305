// Shared Playwright launcher for the browser tests: the Chromium-family browser find-chromium.ts picks, headless,
// loopback only, with console errors and CSP violations collected so a test can assert there were none.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { PROJECT_ROOT } from '../../server/project-paths.js';
import { findChromium } from './find-chromium.js';

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** `extraArgs`: e.g. `--host-resolver-rules=MAP rebound.test 127.0.0.1` to play a DNS-rebinding page. */
export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  const { launch } = findChromium({
    platform: process.platform,
    env: process.env,
    exists: (file) => fs.existsSync(file),
    playwrightChromium: () => {
      try {
        return chromium.executablePath();
      } catch {
        return undefined; // a platform Playwright ships no Chromium for
      }
    },
  });
  return chromium.launch({ ...launch, args: [...ARGS, ...extraArgs], headless: true });
}

export interface UiPage {
  context: BrowserContext;
  page: Page;
  /** Console errors, page errors and CSP violations seen so far. */
  problems: string[];
}

/** A fresh browser context at 1280×800 that may only reach `baseUrl` (anything else is aborted). */
export async function openPage(
  browser: Browser,
  baseUrl: string,
  viewport = { width: 1280, height: 800 },
): Promise<UiPage> {
  const context = await browser.newContext({ viewport, baseURL: baseUrl, locale: 'en-US', timezoneId: 'UTC' });
  const origin = new URL(baseUrl).origin;
  await context.route('**/*', (route) =>
    new URL(route.request().url()).origin === origin ? route.continue() : route.abort(),
  );
  // Name the blocked thing: Chromium's console line alone does not say which element broke the CSP.
  // A string, as it runs in the page (the project's tsconfig has no DOM types).
  await context.addInitScript(`
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error('CSP violation: ' + e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' at ' + e.sourceFile + ':' + e.lineNumber + ':' + e.columnNumber + ' sample=' + JSON.stringify(e.sample));
    });
  `);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (msg) => {
    // A 4xx answer the UI expects (wrong password, validation) is logged by Chromium as a failed resource; not a UI bug.
    if (
      msg.type() === 'error' &&
      !/Failed to load resource: the server responded with a status of 4\d\d/.test(msg.text())
    )
      problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('dialog', (dialog) => void dialog.accept());
  return { context, page, problems };
}

/** Saves a screenshot under docs/screenshots/tmp (git-ignored); the good ones are copied up by hand. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const dir = path.join(PROJECT_ROOT, 'docs', 'screenshots', 'tmp');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}
