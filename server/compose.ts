import { createAuthService } from './auth/auth-service.js';
import { loadOrCreateSessionSecret } from './auth/secret.js';
import { prepareDirectories, type Config } from './config.js';
import type { Logger } from './log.js';
import type { Services } from './services.js';

/** The composition root: the one place where long-lived services are created and wired together. */
export async function createServices(config: Config, logger: Logger): Promise<Services> {
  prepareDirectories(config);
  const closers: Array<() => Promise<void>> = [];

  const auth = createAuthService(config, loadOrCreateSessionSecret(config.dataDir, config.jwtSecret));

  return {
    config,
    logger,
    auth,
    startedAt: Date.now(),
    async close() {
      for (const close of closers.reverse()) await close();
    },
  };
}
