// Who is signed in, and the service's non-secret settings; fetched once per sign-in.
import { request } from './api.js';
import type { Me, UiConfig } from './types.js';

let me: Me | null = null;
let config: UiConfig | null = null;

/** The signed-in user, or null when there is no valid session. */
export async function currentUser(): Promise<Me | null> {
  if (me) return me;
  try {
    me = await request<Me>('/api/ui/me', { quiet401: true });
    return me;
  } catch {
    return null;
  }
}

export async function uiConfig(): Promise<UiConfig> {
  config ??= await request<UiConfig>('/api/ui/config');
  return config;
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
