import type { MenuItemLike } from './electron-like.js';

export interface MenuActions {
  open: () => void;
  copyWebhookUrl: () => void;
  openRulesFolder: () => void;
  /** Opens the service log file (rotated, in the data dir). */
  openLog: () => void;
  quit: () => void;
}

/** The tray menu: the service keeps running (for webhooks) while the window is closed. */
export function trayMenuTemplate(actions: MenuActions, webhookUrl: string): MenuItemLike[] {
  return [
    { label: 'Open', click: actions.open },
    { label: 'Copy webhook URL', click: actions.copyWebhookUrl },
    { label: webhookUrl, enabled: false },
    { label: 'Open rules folder', click: actions.openRulesFolder },
    { label: 'Open log', click: actions.openLog },
    { type: 'separator' },
    { label: 'Quit', click: actions.quit },
  ];
}

/** The window's menu: the same actions, plus editing keys (Cmd-C/V need a menu role on macOS). */
export function appMenuTemplate(actions: MenuActions, devTools: boolean): MenuItemLike[] {
  return [
    {
      label: 'File',
      submenu: [
        { label: 'Copy webhook URL', click: actions.copyWebhookUrl },
        { label: 'Open rules folder', click: actions.openRulesFolder },
        { label: 'Open log', click: actions.openLog },
        { type: 'separator' },
        { label: 'Quit', accelerator: 'CmdOrCtrl+Q', click: actions.quit },
      ],
    },
    {
      label: 'Edit',
      submenu: [
        { role: 'undo' },
        { role: 'redo' },
        { type: 'separator' },
        { role: 'cut' },
        { role: 'copy' },
        { role: 'paste' },
        { role: 'selectAll' },
      ],
    },
    {
      label: 'View',
      submenu: [
        { role: 'reload' },
        ...(devTools ? [{ role: 'toggleDevTools' } as const] : []),
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { role: 'togglefullscreen' },
      ],
    },
  ];
}
