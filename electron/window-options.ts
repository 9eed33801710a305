import type { BrowserWindowConstructorOptions } from 'electron';

export interface WindowOptionsInput {
  iconPath?: string;
  /** Developer tools only when running from source, never in a packaged build. */
  devTools: boolean;
}

/**
 * The one place the window's options are decided; a test asserts them exactly. The page is the
 * served Web UI and needs nothing from Node or Electron, so there is no preload at all.
 */
export function windowOptions(input: WindowOptionsInput): BrowserWindowConstructorOptions {
  return {
    title: 'dms-rules',
    width: 1280,
    height: 860,
    minWidth: 900,
    minHeight: 600,
    show: false,
    backgroundColor: '#ffffff',
    autoHideMenuBar: true,
    ...(input.iconPath ? { icon: input.iconPath } : {}),
    webPreferences: {
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: false,
      devTools: input.devTools,
    },
  };
}
