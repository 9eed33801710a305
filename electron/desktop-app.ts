import type { Logger } from '../server/log.js';
import { serviceLogFile } from '../server/log-file.js';
import type { DesktopServer } from './desktop-server.js';
import type { ElectronLike, TrayLike, WindowLike } from './electron-like.js';
import { appMenuTemplate, trayMenuTemplate, type MenuActions } from './menus.js';
import { guardWebContents, restrictPermissions } from './navigation-guard.js';
import { windowOptions } from './window-options.js';
import { errorMessage } from '../server/error-message.js';

export interface DesktopAppOptions {
  /** Starts the embedded server (`startDesktopServer` in the app; anything with its shape in tests). */
  startServer(userDataDir: string): Promise<DesktopServer>;
  logger: Logger;
  iconPath?: string;
}

export interface DesktopApp {
  readonly server: DesktopServer;
  /** The open window, or null while it is closed (the service keeps running in the tray). */
  window(): WindowLike | null;
  showWindow(): void;
  /** Stops the server once, then lets Electron quit. */
  quit(): void;
}

/**
 * Wires the desktop shell: one instance, the server in-process, a guarded window signed in with a
 * one-time token, tray and menu, and the server closed before the app exits. Returns null when
 * another instance is running (that one is asked to show its window) or the server cannot start.
 */
export async function createDesktopApp(electron: ElectronLike, options: DesktopAppOptions): Promise<DesktopApp | null> {
  const { app } = electron;
  const { logger } = options;
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return null;
  }

  let server: DesktopServer | null = null;
  let window: WindowLike | null = null;
  let tray: TrayLike | null = null;
  let stopping: Promise<void> | null = null;
  let stopped = false;
  const devTools = !app.isPackaged;

  const showWindow = () => {
    if (!server) return; // a second launch during start-up: the window opens when the server is up
    if (window) {
      if (window.isMinimized()) window.restore();
      window.show();
      window.focus();
      return;
    }
    const origin = new URL(server.url).origin;
    const created = new electron.BrowserWindow(windowOptions({ iconPath: options.iconPath, devTools }));
    guardWebContents(created.webContents, {
      serviceOrigin: origin,
      openExternal: (url) =>
        void electron.shell
          .openExternal(url)
          .catch((err: unknown) => logger.warn(`could not open ${url}: ${String(err)}`)),
      loadInWindow: (url) => void created.loadURL(url),
    });
    created.once('ready-to-show', () => created.show());
    created.on('closed', () => {
      if (window === created) window = null;
    });
    window = created;
    // Every new window signs in afresh, so a closed-and-reopened window never meets an expired session. While no
    // admin exists the setup code rides along in the fragment (kept across the sign-in redirect, never sent).
    const code = server.setupCode();
    created
      .loadURL(code === null ? server.signInUrl() : `${server.signInUrl()}#setup-code=${encodeURIComponent(code)}`)
      .catch((err: unknown) => logger.error(`the window could not load the service: ${String(err)}`));
  };

  const stop = () => {
    stopping ??= (async () => {
      tray?.destroy();
      tray = null;
      try {
        await server?.close();
      } catch (err) {
        logger.error(`the server did not stop cleanly: ${String(err)}`);
      }
      stopped = true;
    })();
    return stopping;
  };

  const quit = () => {
    void stop().then(() => app.quit());
  };

  app.on('second-instance', showWindow);
  app.on('activate', showWindow);
  // Closing the window keeps the service (and its webhook) running; Quit in the tray or menu ends it.
  app.on('window-all-closed', () => undefined);
  app.on('before-quit', (event) => {
    if (stopped) return;
    event.preventDefault();
    quit();
  });

  await app.whenReady();
  restrictPermissions(electron.session.defaultSession);
  try {
    server = await options.startServer(app.getPath('userData'));
  } catch (err) {
    logger.error(`start-up failed: ${(err as Error).stack ?? String(err)}`);
    electron.dialog.showErrorBox('dms-rules could not start', errorMessage(err) || String(err));
    stopped = true;
    app.quit();
    return null;
  }
  const running = server;

  const actions: MenuActions = {
    open: showWindow,
    copyWebhookUrl: () => electron.clipboard.writeText(running.webhookUrl),
    openRulesFolder: () => void electron.shell.openPath(running.rulesDir),
    openLog: () => void electron.shell.openPath(serviceLogFile(running.dataDir)),
    quit,
  };
  electron.Menu.setApplicationMenu(electron.Menu.buildFromTemplate(appMenuTemplate(actions, devTools)));
  if (options.iconPath) {
    tray = new electron.Tray(options.iconPath);
    tray.setToolTip(`dms-rules — webhook: ${running.webhookUrl}`);
    tray.setContextMenu(electron.Menu.buildFromTemplate(trayMenuTemplate(actions, running.webhookUrl)));
    tray.on('click', showWindow);
  }
  showWindow();

  return { server: running, window: () => window, showWindow, quit };
}
