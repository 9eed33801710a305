import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { windowOptions } from '../../../electron/window-options.js';

describe('desktop window options', () => {
  test('are exactly the locked-down set: isolated, sandboxed, no Node, no preload, no webviews', () => {
    assert.deepEqual(windowOptions({ iconPath: '/icons/tray.png', devTools: false }), {
      title: 'dms-rules',
      width: 1280,
      height: 860,
      minWidth: 900,
      minHeight: 600,
      show: false,
      backgroundColor: '#ffffff',
      autoHideMenuBar: true,
      icon: '/icons/tray.png',
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
        devTools: false,
      },
    });
  });

  test('developer tools only when asked for (running from source), and no icon key without an icon', () => {
    const options = windowOptions({ devTools: true });
    assert.equal(options.webPreferences?.devTools, true);
    assert.equal('icon' in options, false);
    assert.equal('preload' in (options.webPreferences ?? {}), false);
  });
});
