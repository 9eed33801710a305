import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import YAML from 'yaml';
import { startReceiver } from '../api/support/notify-kit.js';
import type { UiPage } from './browser.js';
import { startSignedIn, type UiSession } from './session.js';

const focusedId = (page: Page) => page.evaluate<string>('document.activeElement?.id ?? ""');

describe('notification targets in the settings', () => {
  let session: UiSession;
  let ui: UiPage;
  let page: Page;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  before(async () => {
    receiver = await startReceiver();
    session = await startSignedIn({ next: '/settings', ready: '#add-http-target' });
    ({ ui, page } = session);
  });
  after(async () => {
    await session?.close();
    await receiver?.close();
  });

  it('adds an HTTP target with a secret header, shown only as set, and a test send reaches it', async () => {
    await page.click('#add-http-target');
    await page.fill('#target-name', 'phone');
    await page.fill('#target-url', `${receiver.url}/topic`);
    await page.selectOption('#target-format', 'text');
    await page.click('#target-add-header');
    await page.fill('#target-header-name-0', 'Authorization');
    await page.fill('#target-header-value-0', 'Bearer s3cret');
    await page.click('#target-save');
    const item = page.locator('.notify-targets [data-target="phone"]');
    await item.waitFor();
    assert.match((await item.textContent()) ?? '', /HTTP \(text\) to .*\/topic · headers Authorization: set/);
    assert.doesNotMatch((await page.locator('.notify-targets').textContent()) ?? '', /s3cret/);
    assert.equal(await focusedId(page), 'add-http-target', 'the keyboard is back on the button that opened the form');
    const stored = YAML.parse(fs.readFileSync(path.join(session.server.dataDir, 'config.yml'), 'utf8')) as {
      notify_targets: Record<string, unknown>;
    };
    assert.ok(stored.notify_targets.phone);

    await item.locator('button.test').click();
    await item.locator('[role=status]', { hasText: 'Sent: "phone" accepted the test message.' }).waitFor();
    assert.equal(receiver.received.at(-1)?.headers.authorization, 'Bearer s3cret');
  });

  it('edits a target keeping its secret, and the editor completes its name at once', async () => {
    const item = page.locator('.notify-targets [data-target="phone"]');
    await item.locator('button.edit').click();
    assert.equal(await page.locator('#target-header-value-0').getAttribute('placeholder'), 'set — leave empty to keep');
    await page.selectOption('#target-format', 'json');
    await page.click('#target-save');
    await item.locator('.where', { hasText: 'HTTP (json)' }).waitFor();
    await item.locator('button.test').click();
    await item.locator('[role=status]', { hasText: 'Sent:' }).waitFor();
    assert.equal(receiver.received.at(-1)?.headers.authorization, 'Bearer s3cret');

    fs.writeFileSync(path.join(session.server.rulesDir, 'tell.yml'), 'rules: []\n');
    await page.evaluate("fetch('/api/reload', { method: 'POST' })");
    await page.click('.topbar nav a[href="/rules"]');
    await page.click('.tree li[data-path="tell.yml"] a');
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('rules:\n  - id: tell\n    actions:\n      - notify: { to: ');
    await page.keyboard.type('ph', { delay: 30 });
    await page.locator('.cm-tooltip-autocomplete li', { hasText: 'phone' }).waitFor();
  });

  it('removes a target after the app asks, and gives the keyboard back', async () => {
    await page.click('.topbar nav a[href="/settings"]');
    const item = page.locator('.notify-targets [data-target="phone"]');
    await item.locator('button.remove').click();
    await page.locator('#confirm-dialog[open]').waitFor();
    await page.click('#confirm-yes');
    await item.waitFor({ state: 'detached' });
    await page.locator('.notify-targets', { hasText: 'No targets yet.' }).waitFor();
    assert.equal(await focusedId(page), 'add-http-target');
    // Chromium's own contenteditable editing puts a style attribute on an editor line now and then; the strict
    // CSP blocks it and CodeMirror redraws the line. Anything else is a page problem.
    assert.deepEqual(
      ui.problems.filter((p) => !/style-src/.test(p)),
      [],
    );
  });
});
