import path from 'node:path';
import { createAuthService } from './auth/auth-service.js';
import { createDesktopSignIn } from './auth/desktop-sign-in.js';
import { loadOrCreateSessionSecret } from './auth/secret.js';
import { prepareDirectories, type Config } from './config.js';
import { openTraceStore } from './history/trace-store.js';
import type { Logger } from './log.js';
import type { Services } from './services.js';
import { createSettingsService } from './settings/settings-service.js';

/** The composition root: the one place where long-lived services are created and wired together. */
export async function createServices(config: Config, logger: Logger): Promise<Services> {
  prepareDirectories(config);
  const closers: Array<() => Promise<void>> = [];

  const auth = createAuthService(config, loadOrCreateSessionSecret(config.dataDir, config.jwtSecret));
  const desktopSignIn = createDesktopSignIn();
  const settings = createSettingsService(config, logger);

  const history = await openTraceStore({ dir: path.join(config.dataDir, 'traces'), retention: config.traceRetention, logger });
  closers.push(() => history.close());

  return {
    config,
    logger,
    auth,
    desktopSignIn,
    settings,
    history,
    startedAt: Date.now(),
    async close() {
      for (const close of closers.reverse()) await close();
    },
  };
}
