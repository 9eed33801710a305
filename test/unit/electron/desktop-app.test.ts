import '../../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { createDesktopApp } from '../../../electron/desktop-app.js';
import { startDesktopServer, type DesktopServer } from '../../../electron/desktop-server.js';
import { windowOptions } from '../../../electron/window-options.js';
import { createMemoryLogger } from '../../../server/log.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { createFakeElectron, itemLabelled, menuItems } from './fake-electron.js';

const ICON = '/opt/dms-rules/tray.png';

/** The real embedded server, counting how often the app starts and stops it. */
function realServer() {
  const calls = { started: [] as string[], closed: 0 };
  const startServer = async (userDataDir: string): Promise<DesktopServer> => {
    calls.started.push(userDataDir);
    const server = await startDesktopServer({
      userDataDir,
      examplesDir: tempDir('dms-rules-examples-'),
      logger: createMemoryLogger(),
      // No evaluation worker: this file tests the shell's wiring; each worker boot costs more CPU than a test here.
      env: { SVC_EVAL_WORKERS: '0' },
    });
    return {
      ...server,
      close: async () => {
        calls.closed += 1;
        await server.close();
      },
    };
  };
  return { calls, startServer };
}

async function launch(lock = true) {
  const userData = tempDir('dms-rules-userdata-');
  const fake = createFakeElectron({ lock, userData });
  const server = realServer();
  const desktop = await createDesktopApp(fake.electron, {
    startServer: server.startServer,
    logger: createMemoryLogger(),
    iconPath: ICON,
  });
  return { ...fake, ...server, desktop, userData };
}

async function quitAndWait(fake: Awaited<ReturnType<typeof launch>>) {
  fake.app.quit();
  for (let i = 0; i < 200 && !fake.app.exited; i++) await new Promise((r) => setTimeout(r, 5));
}

describe('desktop app wiring', () => {
  test('a second instance asks the first to show itself and quits without starting a server', async () => {
    const fake = await launch(false);
    assert.equal(fake.desktop, null);
    assert.equal(fake.app.exited, true);
    assert.deepEqual(fake.calls.started, []);
    assert.equal(fake.windows.length, 0);
  });

  test('starts the server under userData and opens one window with the locked-down options', async () => {
    const fake = await launch();
    try {
      assert.deepEqual(fake.calls.started, [fake.userData]);
      assert.equal(fake.windows.length, 1);
      assert.deepEqual(fake.windows[0].options, windowOptions({ iconPath: ICON, devTools: true }));
      assert.equal(fake.windows[0].shown, 0, 'hidden until its first paint');
      fake.windows[0].emit('ready-to-show');
      assert.equal(fake.windows[0].shown, 1);
    } finally {
      await quitAndWait(fake);
    }
  });

  test('the window loads a one-time sign-in URL that really signs in, once', async () => {
    const fake = await launch();
    try {
      const [url] = fake.windows[0].loaded;
      assert.ok(fake.desktop);
      assert.equal(new URL(url).origin, fake.desktop.server.url);
      const res = await fetch(url, { redirect: 'manual' });
      assert.equal(res.status, 303);
      const me = await fetch(`${fake.desktop.server.url}/api/ui/me`, {
        headers: { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] },
      });
      assert.equal(me.status, 200);
      assert.equal((await fetch(url, { redirect: 'manual' })).status, 401);
    } finally {
      await quitAndWait(fake);
    }
  });

  test('on the first start the window is handed the setup code, which creates the admin account once', async () => {
    const fake = await launch();
    try {
      assert.ok(fake.desktop);
      const code = new URLSearchParams(new URL(fake.windows[0].loaded[0]).hash.slice(1)).get('setup-code');
      assert.ok(code);
      assert.equal(code, fake.desktop.server.setupCode());
      const create = (body: object) =>
        fetch(`${fake.desktop?.server.url}/api/setup`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      assert.equal((await create({ code, username: 'owner', password: 'a good long password' })).status, 200);
      assert.equal(fake.desktop.server.setupCode(), null, 'spent');
      fake.windows[0].emit('closed');
      fake.app.emit('activate');
      assert.equal(new URL(fake.windows[1].loaded[0]).hash, '', 'no code once the admin exists');
    } finally {
      await quitAndWait(fake);
    }
  });

  test('the window is guarded: off-origin navigation goes to the system browser, window.open is denied', async () => {
    const fake = await launch();
    try {
      const contents = fake.windows[0].webContents;
      assert.equal(contents.navigate(`${fake.desktop?.server.url}/traces`).defaultPrevented, false);
      assert.equal(contents.navigate('https://example.org/').defaultPrevented, true);
      assert.deepEqual(contents.openHandler?.({ url: 'https://example.org/x' }), { action: 'deny' });
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(fake.record.externals, ['https://example.org/', 'https://example.org/x']);
      const granted: boolean[] = [];
      fake.record.permissionRequest?.(null, 'media', (g) => granted.push(g));
      assert.deepEqual(granted, [false]);
    } finally {
      await quitAndWait(fake);
    }
  });

  test('a second launch restores and focuses the existing window instead of opening another', async () => {
    const fake = await launch();
    try {
      fake.windows[0].minimized = true;
      fake.app.emit('second-instance');
      assert.equal(fake.windows.length, 1);
      assert.equal(fake.windows[0].restored, 1);
      assert.equal(fake.windows[0].focused, 1);
    } finally {
      await quitAndWait(fake);
    }
  });

  test('closing the window keeps the service running; Open brings a freshly signed-in window', async () => {
    const fake = await launch();
    try {
      assert.ok(fake.desktop);
      assert.equal(fake.app.count('window-all-closed'), 1, 'a listener stops Electron quitting with the last window');
      fake.windows[0].emit('closed');
      assert.equal(fake.desktop.window(), null);
      assert.equal((await fetch(`${fake.desktop.server.url}/api/health`)).status, 200);

      itemLabelled(menuItems(fake.trays[0].menu), 'Open').click?.();
      assert.equal(fake.windows.length, 2);
      assert.equal(fake.desktop.window(), fake.windows[1]);
      assert.notEqual(fake.windows[1].loaded[0], fake.windows[0].loaded[0], 'a new one-time token');
    } finally {
      await quitAndWait(fake);
    }
  });

  test('tray: webhook URL in the tooltip, Copy webhook URL, Open rules folder and Open log do what they say', async () => {
    const fake = await launch();
    try {
      assert.ok(fake.desktop);
      const tray = fake.trays[0];
      assert.equal(tray.image, ICON);
      const webhook = `${fake.desktop.server.url}/api/webhook/dms`;
      assert.match(tray.tooltip, new RegExp(webhook.replace(/[.:/]/g, '\\$&')));
      const items = menuItems(tray.menu);
      assert.deepEqual(
        items.map((i) => i.label ?? i.type),
        ['Open', 'Copy webhook URL', webhook, 'Open rules folder', 'Open log', 'separator', 'Quit'],
      );
      itemLabelled(items, 'Copy webhook URL').click?.();
      assert.equal(fake.record.clipboard, webhook);
      itemLabelled(items, 'Open rules folder').click?.();
      assert.deepEqual(fake.record.openedPaths, [path.join(fake.userData, 'rules.d')]);
      itemLabelled(items, 'Open log').click?.();
      assert.equal(fake.record.openedPaths[1], path.join(fake.userData, 'data', 'logs', 'service.log'));
      const appMenu = menuItems(fake.record.applicationMenu);
      assert.equal(itemLabelled(appMenu, 'Quit').accelerator, 'CmdOrCtrl+Q');
    } finally {
      await quitAndWait(fake);
    }
  });

  test('Quit stops the server once, then the app exits', async () => {
    const fake = await launch();
    assert.ok(fake.desktop);
    const url = fake.desktop.server.url;
    itemLabelled(menuItems(fake.trays[0].menu), 'Quit').click?.();
    fake.app.quit(); // a second quit while stopping must not stop twice
    for (let i = 0; i < 200 && !fake.app.exited; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(fake.app.exited, true);
    assert.equal(fake.calls.closed, 1);
    assert.equal(fake.trays[0].destroyed, true);
    await assert.rejects(fetch(`${url}/api/health`));
  });

  test('a server that cannot start shows an error box and quits', async () => {
    const fake = createFakeElectron({ userData: tempDir('dms-rules-userdata-') });
    const desktop = await createDesktopApp(fake.electron, {
      logger: createMemoryLogger(),
      startServer: () => Promise.reject(new Error('SVC_PORT must be a whole number from 0 to 65535, got "abc"')),
    });
    assert.equal(desktop, null);
    assert.deepEqual(fake.record.errorBoxes, [
      { title: 'dms-rules could not start', content: 'SVC_PORT must be a whole number from 0 to 65535, got "abc"' },
    ]);
    assert.equal(fake.app.exited, true);
    assert.equal(fake.windows.length, 0);
  });
});
