import type { BrowserWindowConstructorOptions } from 'electron';

// The slice of the Electron API the desktop app uses. Real `electron` satisfies it (main.ts passes it
// and tsc checks that); the unit tests pass a small fake, since Electron cannot load in plain Node.

export interface NavigationEventLike {
  url: string;
  preventDefault(): void;
}

export interface WebContentsLike {
  on(event: 'will-navigate' | 'will-redirect', listener: (event: NavigationEventLike) => void): unknown;
  on(event: 'will-attach-webview', listener: (event: { preventDefault(): void }) => void): unknown;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
}

export interface WindowLike {
  readonly webContents: WebContentsLike;
  loadURL(url: string): Promise<void>;
  show(): void;
  focus(): void;
  restore(): void;
  isMinimized(): boolean;
  once(event: 'ready-to-show', listener: () => void): unknown;
  on(event: 'closed', listener: () => void): unknown;
}

export interface MenuItemLike {
  label?: string;
  type?: 'normal' | 'separator' | 'submenu';
  role?:
    | 'quit'
    | 'undo'
    | 'redo'
    | 'cut'
    | 'copy'
    | 'paste'
    | 'selectAll'
    | 'reload'
    | 'toggleDevTools'
    | 'resetZoom'
    | 'zoomIn'
    | 'zoomOut'
    | 'togglefullscreen'
    | 'minimize'
    | 'close';
  accelerator?: string;
  enabled?: boolean;
  click?: () => void;
  submenu?: MenuItemLike[];
}

export interface TrayLike {
  setToolTip(text: string): void;
  setContextMenu(menu: MenuLike | null): void;
  on(event: 'click', listener: () => void): unknown;
  destroy(): void;
}

/** An opaque built menu: only handed back to Electron. */
export interface MenuLike {
  readonly items: readonly unknown[];
}

export interface PermissionSessionLike {
  setPermissionRequestHandler(
    handler: (contents: unknown, permission: string, callback: (granted: boolean) => void) => void,
  ): void;
  setPermissionCheckHandler(handler: (contents: unknown, permission: string) => boolean): void;
}

export interface AppLike {
  requestSingleInstanceLock(): boolean;
  whenReady(): Promise<unknown>;
  quit(): void;
  on(event: 'second-instance' | 'activate' | 'window-all-closed', listener: () => void): unknown;
  on(event: 'before-quit', listener: (event: { preventDefault(): void }) => void): unknown;
  getPath(name: 'userData'): string;
  readonly isPackaged: boolean;
}

export interface ElectronLike {
  app: AppLike;
  BrowserWindow: new (options: BrowserWindowConstructorOptions) => WindowLike;
  Tray: new (image: string) => TrayLike;
  Menu: {
    buildFromTemplate(template: MenuItemLike[]): MenuLike;
    setApplicationMenu(menu: MenuLike | null): void;
  };
  shell: {
    openExternal(url: string): Promise<void>;
    openPath(path: string): Promise<string>;
  };
  clipboard: { writeText(text: string): void };
  dialog: { showErrorBox(title: string, content: string): void };
  session: { readonly defaultSession: PermissionSessionLike };
}
