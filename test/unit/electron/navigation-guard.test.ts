import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  classifyNavigation,
  guardWebContents,
  restrictPermissions,
  type NavigationVerdict,
} from '../../../electron/navigation-guard.js';
import { FakeWebContents } from './fake-electron.js';

const ORIGIN = 'http://127.0.0.1:41234';

// Misleading URLs, each parsed the way Chromium will parse it.
const TABLE: Array<[string, NavigationVerdict, string]> = [
  ['http://127.0.0.1:41234/', 'allow', 'the service itself'],
  ['http://127.0.0.1:41234/rules?file=abc#top', 'allow', 'a path, query and fragment on the service'],
  ['HTTP://127.0.0.1:41234/traces', 'allow', 'the scheme in capitals is the same origin'],
  ['http://2130706433:41234/', 'allow', '127.0.0.1 written as one number is the same host'],
  ['http://１２７.０.０.１:41234/', 'allow', 'full-width digits normalise to the same host'],
  ['http://127.0.0.1:41234@evil.example/', 'deny', 'userinfo trick: the host is evil.example'],
  ['http://evil.example@127.0.0.1:41234/', 'deny', 'credentials in the URL, even to our host'],
  ['http://user:pass@127.0.0.1:41234/', 'deny', 'user and password in the URL'],
  ['http://127.0.0.1:41234.evil.com/', 'deny', 'the port swallowing a domain does not parse'],
  ['http://127.0.0.1.evil.com:41234/', 'external', 'a look-alike domain is somebody else'],
  ['http://127.0.0.1:41235/', 'external', 'another port is another origin'],
  ['http://127.0.0.1/', 'external', 'the default port is another origin'],
  ['https://127.0.0.1:41234/', 'external', 'https is another origin'],
  ['http://localhost:41234/', 'external', 'localhost is not the origin the window was opened on'],
  ['http://[::1]:41234/', 'external', 'IPv6 loopback is another origin'],
  ['https://paperless.lan:8000/documents/12/details', 'external', 'a dms link opens in the browser'],
  ['https://xn--80ak6aa92e.com/', 'external', 'an IDN (punycode) host is somebody else'],
  ['https://аррӏе.com/', 'external', 'a Cyrillic homograph is somebody else'],
  ['mailto:admin@example.org', 'external', 'mail links go to the mail program'],
  ['file:///etc/passwd', 'deny', 'local files never'],
  ['file://127.0.0.1:41234/', 'deny', 'file: with our host is still a file'],
  ['javascript:alert(1)', 'deny', 'script URLs never'],
  ['JaVaScRiPt:alert(1)', 'deny', 'script URLs in any case'],
  ['data:text/html,<script>alert(1)</script>', 'deny', 'data URLs never'],
  ['blob:http://127.0.0.1:41234/0b0e-uuid', 'deny', 'blob URLs never navigate the window'],
  ['view-source:http://127.0.0.1:41234/', 'deny', 'view-source is not the origin'],
  ['chrome://settings', 'deny', 'browser-internal pages never'],
  ['devtools://devtools/bundled/inspector.html', 'deny', 'devtools never'],
  ['ftp://example.org/file', 'deny', 'other protocols are not opened'],
  ['//evil.example/path', 'deny', 'a relative URL without a base is refused'],
  ['not a url', 'deny', 'garbage is refused'],
  ['', 'deny', 'empty is refused'],
];

describe('navigation guard', () => {
  for (const [url, verdict, why] of TABLE) {
    test(`${verdict}: ${why} (${url || '<empty>'})`, () => {
      assert.equal(classifyNavigation(url, ORIGIN), verdict);
    });
  }

  function guarded() {
    const contents = new FakeWebContents();
    const externals: string[] = [];
    const inWindow: string[] = [];
    guardWebContents(contents, {
      serviceOrigin: ORIGIN,
      openExternal: (u) => externals.push(u),
      loadInWindow: (u) => inWindow.push(u),
    });
    return { contents, externals, inWindow };
  }

  test('navigation inside the service proceeds; a link outside is stopped and opened in the system browser', () => {
    const { contents, externals } = guarded();
    assert.equal(contents.navigate(`${ORIGIN}/traces`).defaultPrevented, false);
    assert.equal(contents.navigate('https://docs.paperless-ngx.com/').defaultPrevented, true);
    assert.deepEqual(externals, ['https://docs.paperless-ngx.com/']);
  });

  test('a denied URL is stopped and opened nowhere', () => {
    const { contents, externals } = guarded();
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'http://127.0.0.1:41234@evil.example/']) {
      assert.equal(contents.navigate(url).defaultPrevented, true, url);
    }
    assert.deepEqual(externals, []);
  });

  test('a redirect off the origin is stopped and not opened anywhere', () => {
    const { contents, externals } = guarded();
    assert.equal(contents.navigate('https://evil.example/', 'will-redirect').defaultPrevented, true);
    assert.equal(contents.navigate(`${ORIGIN}/`, 'will-redirect').defaultPrevented, false);
    assert.deepEqual(externals, []);
  });

  test('window.open never creates a window: own pages load in place, web links go to the browser', () => {
    const { contents, externals, inWindow } = guarded();
    const open = contents.openHandler;
    assert.ok(open);
    assert.deepEqual(open({ url: `${ORIGIN}/traces` }), { action: 'deny' });
    assert.deepEqual(open({ url: 'https://example.org/' }), { action: 'deny' });
    assert.deepEqual(open({ url: 'javascript:alert(1)' }), { action: 'deny' });
    assert.deepEqual(inWindow, [`${ORIGIN}/traces`]);
    assert.deepEqual(externals, ['https://example.org/']);
  });

  test('webviews are never attached', () => {
    const { contents } = guarded();
    const event = {
      defaultPrevented: false,
      preventDefault() {
        this.defaultPrevented = true;
      },
    };
    contents.emit('will-attach-webview', event);
    assert.equal(event.defaultPrevented, true);
  });

  test('permissions: everything refused except writing text to the clipboard', () => {
    let request: ((c: unknown, p: string, cb: (g: boolean) => void) => void) | undefined;
    let check: ((c: unknown, p: string) => boolean) | undefined;
    restrictPermissions({
      setPermissionRequestHandler: (h) => void (request = h),
      setPermissionCheckHandler: (h) => void (check = h),
    });
    const answers: Record<string, boolean> = {};
    for (const p of [
      'media',
      'geolocation',
      'notifications',
      'clipboard-read',
      'openExternal',
      'clipboard-sanitized-write',
    ]) {
      request?.(null, p, (granted) => void (answers[p] = granted));
    }
    assert.deepEqual(answers, {
      media: false,
      geolocation: false,
      notifications: false,
      'clipboard-read': false,
      openExternal: false,
      'clipboard-sanitized-write': true,
    });
    assert.equal(check?.(null, 'media'), false);
    assert.equal(check?.(null, 'clipboard-sanitized-write'), true);
  });
});
