// Which Chromium-family browser the browser tests launch, on any machine a developer uses.
// Pure: the platform, environment, file check and Playwright's own browser path are passed in,
// so the search order is unit-tested as a table (test/unit/e2e/find-chromium.test.ts).

export type LaunchTarget = { executablePath: string } | { channel: 'chrome' | 'msedge' };

export interface ChromiumChoice {
  launch: LaunchTarget;
  /** Where it was found, for error messages. */
  found: string;
}

export interface ChromiumSearch {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  exists: (file: string) => boolean;
  /** Where Playwright keeps the Chromium that `playwright-core install chromium` downloads (may not exist). */
  playwrightChromium: () => string | undefined;
}

type Paths = (env: Record<string, string | undefined>) => Array<string | undefined>;

const windows = (base: string | undefined, rest: string): string | undefined => (base ? `${base}\\${rest}` : undefined);

// The places Playwright's `channel` option itself launches from.
const CHANNELS: Record<'chrome' | 'msedge', Partial<Record<NodeJS.Platform, Paths>>> = {
  chrome: {
    linux: () => ['/opt/google/chrome/chrome'],
    darwin: () => ['/Applications/Google Chrome.app/Contents/MacOS/Google Chrome'],
    win32: (env) => [
      windows(env.LOCALAPPDATA, 'Google\\Chrome\\Application\\chrome.exe'),
      windows(env.PROGRAMFILES, 'Google\\Chrome\\Application\\chrome.exe'),
      windows(env['PROGRAMFILES(X86)'], 'Google\\Chrome\\Application\\chrome.exe'),
    ],
  },
  msedge: {
    linux: () => ['/opt/microsoft/msedge/msedge'],
    darwin: () => ['/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge'],
    win32: (env) => [
      windows(env['PROGRAMFILES(X86)'], 'Microsoft\\Edge\\Application\\msedge.exe'),
      windows(env.PROGRAMFILES, 'Microsoft\\Edge\\Application\\msedge.exe'),
      windows(env.LOCALAPPDATA, 'Microsoft\\Edge\\Application\\msedge.exe'),
    ],
  },
};

// Chromium's headless shell as the system's package manager installs it: the same Blink and V8 without the
// browser's windowing; the tests only run headless, and a fresh page there costs a third of the CPU.
const HEADLESS_SHELL: Partial<Record<NodeJS.Platform, Paths>> = {
  linux: () => ['/usr/bin/chromium-headless-shell'],
};

// Chromium as the system's package manager installs it.
const SYSTEM: Partial<Record<NodeJS.Platform, Paths>> = {
  linux: () => ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/snap/bin/chromium'],
  darwin: (env) => [
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
    env.HOME ? `${env.HOME}/Applications/Chromium.app/Contents/MacOS/Chromium` : undefined,
  ],
  win32: (env) => [windows(env.LOCALAPPDATA, 'Chromium\\Application\\chrome.exe')],
};

/** The one command that installs a browser the search below finds, on this platform. */
export function installCommand(platform: NodeJS.Platform): string {
  // Debian packages Chromium's headless shell (CI installs it); elsewhere Playwright's own download needs no admin
  // rights.
  return platform === 'linux'
    ? 'sudo apt-get install -y chromium-headless-shell'
    : 'npx playwright-core install chromium';
}

/**
 * CHROMIUM_PATH, then the system's headless shell, then Playwright's installed Chromium, then an installed Chrome
 * or Edge (through Playwright's `channel`), then the system's Chromium. Throws with the install command when there
 * is none.
 */
export function findChromium(search: ChromiumSearch): ChromiumChoice {
  const { platform, env, exists } = search;
  const firstFound = (paths: Partial<Record<NodeJS.Platform, Paths>>) =>
    (paths[platform]?.(env) ?? []).find((p) => p !== undefined && exists(p));
  const explicit = env.CHROMIUM_PATH;
  if (explicit) {
    if (!exists(explicit))
      throw new Error(
        `CHROMIUM_PATH is ${explicit}, but there is no file there: point it at a Chromium, Chrome or Edge executable, or unset it.`,
      );
    return { launch: { executablePath: explicit }, found: `CHROMIUM_PATH (${explicit})` };
  }
  const shell = firstFound(HEADLESS_SHELL);
  if (shell) return { launch: { executablePath: shell }, found: shell };
  const own = search.playwrightChromium();
  if (own && exists(own)) return { launch: { executablePath: own }, found: `Playwright's Chromium (${own})` };
  for (const channel of ['chrome', 'msedge'] as const) {
    const at = firstFound(CHANNELS[channel]);
    if (at) return { launch: { channel }, found: `${channel} (${at})` };
  }
  const system = firstFound(SYSTEM);
  if (system) return { launch: { executablePath: system }, found: system };
  throw new Error(
    `The browser tests need Chromium, Chrome or Edge and found none. Install one with: ${installCommand(platform)}` +
      ' (or set CHROMIUM_PATH to a Chromium-family executable).',
  );
}
