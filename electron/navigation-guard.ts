import type { PermissionSessionLike, WebContentsLike } from './electron-like.js';

/** allow: load in the window; external: hand to the system browser; deny: do nothing. */
export type NavigationVerdict = 'allow' | 'external' | 'deny';

const EXTERNAL_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);

/**
 * Decides where a URL may go, by parsing it (never by matching substrings): only the service's own
 * origin loads in the window; ordinary web and mail links open outside; everything else is refused.
 */
export function classifyNavigation(target: string, serviceOrigin: string): NavigationVerdict {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return 'deny';
  }
  // `http://127.0.0.1:PORT@evil.example` and friends: credentials in a link are only ever a trick.
  if (url.username !== '' || url.password !== '') return 'deny';
  if (url.protocol === 'http:' && url.origin === serviceOrigin) return 'allow';
  return EXTERNAL_PROTOCOLS.has(url.protocol) ? 'external' : 'deny';
}

export interface GuardOptions {
  serviceOrigin: string;
  openExternal(url: string): void;
  /** Same-origin links that ask for a new window load in the existing one instead. */
  loadInWindow(url: string): void;
}

/** Blocks navigation, redirects, new windows and webviews that leave the service's origin. */
export function guardWebContents(contents: WebContentsLike, options: GuardOptions): void {
  const verdict = (url: string) => classifyNavigation(url, options.serviceOrigin);

  contents.on('will-navigate', (event) => {
    const v = verdict(event.url);
    if (v === 'allow') return;
    event.preventDefault();
    if (v === 'external') options.openExternal(event.url);
  });
  // A redirect is the server's choice, not the user's: never follow it off the origin, never open it.
  contents.on('will-redirect', (event) => {
    if (verdict(event.url) !== 'allow') event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    const v = verdict(url);
    if (v === 'allow') options.loadInWindow(url);
    if (v === 'external') options.openExternal(url);
    return { action: 'deny' };
  });
}

// The Web UI needs no camera, notifications, geolocation or the like. Writing plain text to the
// clipboard (its copy buttons) is the one thing it may do; reading the clipboard stays refused.
const ALLOWED_PERMISSIONS = new Set(['clipboard-sanitized-write']);

export function restrictPermissions(session: PermissionSessionLike): void {
  session.setPermissionRequestHandler((_contents, permission, callback) =>
    callback(ALLOWED_PERMISSIONS.has(permission)),
  );
  session.setPermissionCheckHandler((_contents, permission) => ALLOWED_PERMISSIONS.has(permission));
}
