// Shared Playwright launcher for the browser tests: the Chromium-family browser find-chromium.ts picks, headless,
// loopback only, with console errors and CSP violations collected so a test can assert there were none.
import fs from 'node:fs';
import path from 'node:path';
import { after } from 'node:test';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
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

/** What a test file holds of Chromium: contexts of its own in a browser the files of its process share. */
export interface TestBrowser {
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  /** Closes the contexts opened through this handle; the browser stays for the next file of the batch. */
  close(): Promise<void>;
}

// One Chromium per set of arguments and test process: `npm test` runs browser files several to a process, and a
// Chromium start is a large part of a small file's CPU. Each file gets fresh contexts, so nothing carries over.
const started = new Map<string, Promise<Browser>>();
after(async () => {
  for (const browser of started.values()) await (await browser.catch(() => undefined))?.close();
  started.clear();
});

function launch(args: string[]): Promise<Browser> {
  const { launch: target } = findChromium({
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
  return chromium.launch({ ...target, args, headless: true });
}

/** `extraArgs`: e.g. `--host-resolver-rules=MAP rebound.test 127.0.0.1` to play a DNS-rebinding page. */
export async function launchBrowser(extraArgs: string[] = []): Promise<TestBrowser> {
  const args = [...ARGS, ...extraArgs];
  const key = args.join('\n');
  let browser = started.get(key);
  if (!browser) {
    browser = launch(args);
    started.set(key, browser);
  }
  const shared = await browser;
  const opened = new Set<BrowserContext>();
  return {
    async newContext(options) {
      const context = await shared.newContext(options);
      opened.add(context);
      context.once('close', () => opened.delete(context));
      return context;
    },
    async close() {
      await Promise.all([...opened].map((context) => context.close()));
    },
  };
}

export interface UiPage {
  context: BrowserContext;
  page: Page;
  /** Console errors, page errors, CSP violations and requests outside `baseUrl`'s origin seen so far. */
  problems: string[];
  /** Lets the context's pages reach one more origin (the demo dms's own page, say) without it counting as a problem. */
  allowOrigin(origin: string): void;
}

/**
 * A fresh browser context at 1280×800 whose pages may only reach `baseUrl`: a request to any other origin is a
 * problem. The requests are watched, not intercepted: routing every request through Playwright cost about 0.4 s of
 * CPU per page load, and the page's CSP already keeps its own fetches home.
 */
export async function openPage(
  browser: TestBrowser,
  baseUrl: string,
  viewport = { width: 1280, height: 800 },
): Promise<UiPage> {
  const context = await browser.newContext({ viewport, baseURL: baseUrl, locale: 'en-US', timezoneId: 'UTC' });
  const allowed = new Set([new URL(baseUrl).origin]);
  const problems: string[] = [];
  context.on('request', (request) => {
    const url = new URL(request.url());
    if (/^https?:$/.test(url.protocol) && !allowed.has(url.origin))
      problems.push(`request outside the service: ${url.href}`);
  });
  // Name the blocked thing: Chromium's console line alone does not say which element broke the CSP.
  // A string, as it runs in the page (the project's tsconfig has no DOM types).
  await context.addInitScript(`
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error('CSP violation: ' + e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' at ' + e.sourceFile + ':' + e.lineNumber + ':' + e.columnNumber + ' sample=' + JSON.stringify(e.sample));
    });
  `);
  const page = await context.newPage();
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
  return { context, page, problems, allowOrigin: (origin) => void allowed.add(origin) };
}

/**
 * With `SCREENSHOTS=1`, saves a screenshot under docs/screenshots/tmp (git-ignored); the good ones are copied up by
 * hand. Off by default: nothing asserts on them, and rendering and encoding each costs Chromium CPU in every run.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.SCREENSHOTS !== '1') return;
  const dir = path.join(PROJECT_ROOT, 'docs', 'screenshots', 'tmp');
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`) });
}
