// Who is signed in, and the service's non-secret settings; fetched once per sign-in.
import { ApiError, request } from './api.js';
import type { Me, UiConfig } from './types.js';

let me: Me | null = null;
let config: UiConfig | null = null;

/** The signed-in user, or null when there is no valid session. */
export async function currentUser(): Promise<Me | null> {
  if (me) return me;
  try {
    me = await request<Me>('/api/ui/me', { quiet401: true });
    return me;
  } catch (err) {
    // Only "not signed in" means sign in; an unreachable service is shown as such and retried.
    if (err instanceof ApiError && err.status === 401) return null;
    throw err;
  }
}

export async function uiConfig(): Promise<UiConfig> {
  config ??= await request<UiConfig>('/api/ui/config');
  return config;
}

/** Asks the service again (after a reconnect it may have restarted with another dms). */
export async function refreshConfig(): Promise<UiConfig> {
  config = null;
  return uiConfig();
}

/** Whether the first start's setup page applies (no admin yet) and may be used from here. */
export function setupState(): Promise<{ needed: boolean; allowed: boolean }> {
  return request('/api/setup');
}

const SETUP_CODE_KEY = 'dms-rules.setup-code';

/**
 * Keeps a setup code that came in the address (`#setup-code=…`: the start log's link, the desktop window) for this
 * tab, and takes it off the address bar so it is not bookmarked or shared with the URL.
 */
export function takeSetupCodeFromAddress(): void {
  const code = new URLSearchParams(location.hash.slice(1)).get('setup-code');
  if (!code) return;
  sessionStorage.setItem(SETUP_CODE_KEY, code);
  history.replaceState(history.state, '', location.pathname + location.search);
}

/** The setup code this tab was handed, or ''. */
export function handedSetupCode(): string {
  return sessionStorage.getItem(SETUP_CODE_KEY) ?? '';
}

/** Creates the admin account on a fresh install (with the setup code) and signs in as it. */
export async function createAdmin(code: string, username: string, password: string): Promise<void> {
  await request('/api/setup', { json: { code, username, password }, quiet401: true });
  sessionStorage.removeItem(SETUP_CODE_KEY);
  forgetSession();
}

export function forgetSession(): void {
  me = null;
  config = null;
}

export async function signIn(username: string, password: string): Promise<void> {
  await request('/api/auth', { json: { username, password }, quiet401: true });
  forgetSession();
}

export async function signOut(): Promise<void> {
  try {
    await request('/api/logout', { method: 'POST', quiet401: true });
  } finally {
    forgetSession();
  }
}
