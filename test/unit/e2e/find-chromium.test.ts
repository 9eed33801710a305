import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findChromium, installCommand, type ChromiumChoice, type ChromiumSearch } from '../../e2e/find-chromium.js';

const PLAYWRIGHT_LINUX = '/home/dev/.cache/ms-playwright/chromium-1255/chrome-linux64/chrome';
const WIN_ENV = {
  LOCALAPPDATA: 'C:\\Users\\dev\\AppData\\Local',
  PROGRAMFILES: 'C:\\Program Files',
  'PROGRAMFILES(X86)': 'C:\\Program Files (x86)',
};

function search(
  platform: NodeJS.Platform,
  files: string[],
  env: Record<string, string> = {},
  playwright?: string,
): ChromiumSearch {
  return { platform, env, exists: (file) => files.includes(file), playwrightChromium: () => playwright };
}

const cases: Array<[string, ChromiumSearch, ChromiumChoice['launch']]> = [
  [
    'CHROMIUM_PATH wins over everything',
    search('linux', ['/opt/x/chrome', '/usr/bin/chromium'], { CHROMIUM_PATH: '/opt/x/chrome' }, '/usr/bin/chromium'),
    { executablePath: '/opt/x/chrome' },
  ],
  [
    "the system's headless shell comes next, ahead of every full browser",
    search(
      'linux',
      ['/usr/bin/chromium-headless-shell', PLAYWRIGHT_LINUX, '/opt/google/chrome/chrome'],
      {},
      PLAYWRIGHT_LINUX,
    ),
    { executablePath: '/usr/bin/chromium-headless-shell' },
  ],
  [
    "Playwright's installed Chromium comes next",
    search('linux', [PLAYWRIGHT_LINUX, '/opt/google/chrome/chrome', '/usr/bin/chromium'], {}, PLAYWRIGHT_LINUX),
    { executablePath: PLAYWRIGHT_LINUX },
  ],
  [
    "Playwright's path is skipped when nothing was downloaded there",
    search('linux', ['/usr/bin/chromium'], {}, PLAYWRIGHT_LINUX),
    { executablePath: '/usr/bin/chromium' },
  ],
  [
    'an installed Chrome on Linux goes through the chrome channel',
    search('linux', ['/opt/google/chrome/chrome', '/usr/bin/chromium']),
    { channel: 'chrome' },
  ],
  ['Edge on Linux when there is no Chrome', search('linux', ['/opt/microsoft/msedge/msedge']), { channel: 'msedge' }],
  ["Debian's chromium", search('linux', ['/usr/bin/chromium']), { executablePath: '/usr/bin/chromium' }],
  [
    "Ubuntu's older chromium-browser",
    search('linux', ['/usr/bin/chromium-browser']),
    { executablePath: '/usr/bin/chromium-browser' },
  ],
  ["Ubuntu's snap", search('linux', ['/snap/bin/chromium']), { executablePath: '/snap/bin/chromium' }],
  [
    'Chrome on macOS',
    search('darwin', ['/Applications/Google Chrome.app/Contents/MacOS/Google Chrome']),
    { channel: 'chrome' },
  ],
  [
    'Edge on macOS',
    search('darwin', ['/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge']),
    { channel: 'msedge' },
  ],
  [
    'Chromium in the user Applications folder on macOS',
    search('darwin', ['/Users/dev/Applications/Chromium.app/Contents/MacOS/Chromium'], { HOME: '/Users/dev' }),
    { executablePath: '/Users/dev/Applications/Chromium.app/Contents/MacOS/Chromium' },
  ],
  [
    'Chrome installed per user on Windows',
    search('win32', ['C:\\Users\\dev\\AppData\\Local\\Google\\Chrome\\Application\\chrome.exe'], WIN_ENV),
    { channel: 'chrome' },
  ],
  [
    'Edge, which every Windows has',
    search('win32', ['C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe'], WIN_ENV),
    { channel: 'msedge' },
  ],
  [
    'Chromium on Windows',
    search('win32', ['C:\\Users\\dev\\AppData\\Local\\Chromium\\Application\\chrome.exe'], WIN_ENV),
    { executablePath: 'C:\\Users\\dev\\AppData\\Local\\Chromium\\Application\\chrome.exe' },
  ],
  [
    'a Linux path means nothing on macOS',
    search('darwin', ['/usr/bin/chromium', '/Applications/Chromium.app/Contents/MacOS/Chromium']),
    { executablePath: '/Applications/Chromium.app/Contents/MacOS/Chromium' },
  ],
];

for (const [name, input, expected] of cases) {
  test(`finds the browser: ${name}`, () => {
    assert.deepEqual(findChromium(input).launch, expected);
  });
}

test('a CHROMIUM_PATH that points nowhere is an error that names it, not a silent fallback', () => {
  assert.throws(
    () => findChromium(search('linux', ['/usr/bin/chromium'], { CHROMIUM_PATH: '/nope/chrome' })),
    /CHROMIUM_PATH is \/nope\/chrome, but there is no file there/,
  );
});

test('Windows paths are not guessed when the environment does not name the folders', () => {
  assert.throws(
    () => findChromium(search('win32', ['undefined\\Google\\Chrome\\Application\\chrome.exe'])),
    /found none/,
  );
});

for (const [platform, command] of [
  ['linux', 'sudo apt-get install -y chromium-headless-shell'],
  ['darwin', 'npx playwright-core install chromium'],
  ['win32', 'npx playwright-core install chromium'],
] as const) {
  test(`with no browser on ${platform} the error says the one command that installs one: ${command}`, () => {
    assert.throws(
      () => findChromium(search(platform, [], platform === 'win32' ? WIN_ENV : {})),
      (err: Error) => err.message.includes(`Install one with: ${command}`),
    );
    assert.equal(installCommand(platform), command);
  });
}
