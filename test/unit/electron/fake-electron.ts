import type { BrowserWindowConstructorOptions } from 'electron';
import type { ElectronLike, MenuItemLike, MenuLike } from '../../../electron/electron-like.js';

// A small stand-in for the Electron API: records what the desktop app asks of it and lets a test
// fire the events Electron would. Only what electron-like.ts declares.

type Listener = (...args: never[]) => unknown;

class Emitter {
  private readonly listeners = new Map<string, Listener[]>();
  on(event: string, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }
  once(event: string, listener: Listener): this {
    const wrapper = (...args: never[]) => {
      this.off(event, wrapper);
      return listener(...args);
    };
    return this.on(event, wrapper);
  }
  off(event: string, listener: Listener): void {
    this.listeners.set(
      event,
      (this.listeners.get(event) ?? []).filter((l) => l !== listener),
    );
  }
  emit(event: string, ...args: unknown[]): void {
    for (const listener of this.listeners.get(event) ?? []) (listener as (...a: unknown[]) => unknown)(...args);
  }
  count(event: string): number {
    return this.listeners.get(event)?.length ?? 0;
  }
}

export class FakeEvent {
  defaultPrevented = false;
  constructor(readonly url = '') {}
  preventDefault(): void {
    this.defaultPrevented = true;
  }
}

export class FakeWebContents extends Emitter {
  openHandler: ((details: { url: string }) => { action: 'deny' }) | null = null;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void {
    this.openHandler = handler;
  }
  /** What Electron does when the page navigates: returns the event so a test can see if it was blocked. */
  navigate(url: string, kind: 'will-navigate' | 'will-redirect' = 'will-navigate'): FakeEvent {
    const event = new FakeEvent(url);
    this.emit(kind, event);
    return event;
  }
}

export function createFakeElectron(options: { lock?: boolean; userData: string }) {
  const app = new (class extends Emitter {
    isPackaged = false;
    quitCalls = 0;
    exited = false;
    requestSingleInstanceLock = () => options.lock ?? true;
    whenReady = () => Promise.resolve();
    getPath = (_name: 'userData') => options.userData;
    /** Like Electron: before-quit first, and only an un-prevented quit exits. */
    quit = () => {
      this.quitCalls += 1;
      const event = new FakeEvent();
      this.emit('before-quit', event);
      if (!event.defaultPrevented) this.exited = true;
    };
  })();

  const windows: FakeWindow[] = [];
  class FakeWindow extends Emitter {
    readonly webContents = new FakeWebContents();
    readonly loaded: string[] = [];
    shown = 0;
    focused = 0;
    restored = 0;
    minimized = false;
    constructor(readonly options: BrowserWindowConstructorOptions) {
      super();
      windows.push(this);
    }
    loadURL(url: string): Promise<void> {
      this.loaded.push(url);
      return Promise.resolve();
    }
    show(): void {
      this.shown += 1;
    }
    focus(): void {
      this.focused += 1;
    }
    restore(): void {
      this.restored += 1;
      this.minimized = false;
    }
    isMinimized(): boolean {
      return this.minimized;
    }
  }

  const trays: FakeTray[] = [];
  class FakeTray extends Emitter {
    tooltip = '';
    menu: MenuLike | null = null;
    destroyed = false;
    constructor(readonly image: string) {
      super();
      trays.push(this);
    }
    setToolTip(text: string): void {
      this.tooltip = text;
    }
    setContextMenu(menu: MenuLike | null): void {
      this.menu = menu;
    }
    destroy(): void {
      this.destroyed = true;
    }
  }

  const record = {
    applicationMenu: null as MenuLike | null,
    externals: [] as string[],
    openedPaths: [] as string[],
    clipboard: '',
    errorBoxes: [] as Array<{ title: string; content: string }>,
    permissionRequest: null as
      ((contents: unknown, permission: string, callback: (granted: boolean) => void) => void) | null,
    permissionCheck: null as ((contents: unknown, permission: string) => boolean) | null,
  };

  const electron: ElectronLike = {
    app,
    BrowserWindow: FakeWindow,
    Tray: FakeTray,
    Menu: {
      buildFromTemplate: (template: MenuItemLike[]) => ({ items: template }),
      setApplicationMenu: (menu) => {
        record.applicationMenu = menu;
      },
    },
    shell: {
      openExternal: (url) => {
        record.externals.push(url);
        return Promise.resolve();
      },
      openPath: (p) => {
        record.openedPaths.push(p);
        return Promise.resolve('');
      },
    },
    clipboard: { writeText: (text) => void (record.clipboard = text) },
    dialog: { showErrorBox: (title, content) => void record.errorBoxes.push({ title, content }) },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (handler) => void (record.permissionRequest = handler),
        setPermissionCheckHandler: (handler) => void (record.permissionCheck = handler),
      },
    },
  };

  return { electron, app, windows, trays, record };
}

/** The menu items as the desktop app built them. */
export function menuItems(menu: MenuLike | null): MenuItemLike[] {
  return (menu?.items ?? []) as MenuItemLike[];
}

export function itemLabelled(items: MenuItemLike[], label: string): MenuItemLike {
  for (const item of items) {
    if (item.label === label) return item;
    const inner = item.submenu ? itemLabelled(item.submenu, label) : undefined;
    if (inner?.label === label) return inner;
  }
  return {};
}
