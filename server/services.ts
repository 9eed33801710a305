import type { AuthService } from './auth/auth-service.js';
import type { DesktopSignIn } from './auth/desktop-sign-in.js';
import type { Config } from './config.js';
import type { TraceStore } from './history/trace-store.js';
import type { Logger } from './log.js';
import type { SettingsService } from './settings/settings-service.js';

/**
 * Everything the HTTP layer can reach. Built in one place (`compose.ts`) and handed to `createApp`,
 * so tests, `npm start` and the desktop app wire the service identically.
 */
export interface Services {
  config: Config;
  logger: Logger;
  auth: AuthService;
  startedAt: number;
  /** The persistent trace history (H4). */
  history: TraceStore;
  /** One-time tokens for the desktop window's password-less sign-in (H6). */
  desktopSignIn: DesktopSignIn;
  /** The settings page: config.yml in the data dir, applied live where possible (H6). */
  settings: SettingsService;
  /** Flushes and stops everything long-lived, in reverse order of creation. */
  close(): Promise<void>;
}
