import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config, type ConfigSource } from '../server/config.js';
import type { Logger } from '../server/log.js';
import { startServer } from '../server/server.js';
import { seedRulesDir } from './first-start.js';
import { webhookUrlFor } from './webhook-url.js';

/** The embedded server as the desktop shell sees it. */
export interface DesktopServer {
  /** The service's own address, e.g. http://127.0.0.1:41234 */
  url: string;
  webhookUrl: string;
  rulesDir: string;
  dataDir: string;
  /** A URL that signs the window in once, within a minute, without the admin password. */
  signInUrl(): string;
  /** The first start's setup code while no admin account exists (handed to the window), else null. */
  setupCode(): string | null;
  close(): Promise<void>;
}

export interface DesktopServerOptions {
  userDataDir: string;
  examplesDir: string;
  logger: Logger;
  /** The environment to configure from; default: the process's own (read by config.ts). */
  env?: NodeJS.ProcessEnv;
}

const chosenByUser = (source: ConfigSource | undefined) => source === 'env' || source === 'file';

/**
 * Starts the same server as `npm start`, in this process. Data lives under the app's userData dir;
 * it listens on 127.0.0.1 and a free port unless SVC_HOST/SVC_PORT (environment or config.yml) say
 * otherwise, e.g. 0.0.0.0 to receive the dms webhook from the LAN.
 */
export async function startDesktopServer(options: DesktopServerOptions): Promise<DesktopServer> {
  const dataDir = path.join(options.userDataDir, 'data');
  const probe = loadConfig({ env: options.env, overrides: { dataDir } });
  const overrides: Partial<Config> = { dataDir };
  if (!chosenByUser(probe.sources?.rulesDir)) overrides.rulesDir = path.join(options.userDataDir, 'rules.d');
  if (!chosenByUser(probe.sources?.host)) overrides.host = '127.0.0.1';
  if (!chosenByUser(probe.sources?.port)) overrides.port = 0;
  const config = loadConfig({ env: options.env, overrides });

  if (seedRulesDir(config.rulesDir, options.examplesDir)) {
    options.logger.info(`first start: example rules copied to ${config.rulesDir}`);
  }
  const running = await startServer(config, options.logger);
  return {
    url: running.url,
    webhookUrl: webhookUrlFor(running.url, config.host, os.networkInterfaces()),
    rulesDir: config.rulesDir,
    dataDir: config.dataDir,
    signInUrl: () =>
      `${running.url}/api/auth/desktop?token=${encodeURIComponent(running.services.desktopSignIn.issue())}`,
    setupCode: () => running.services.firstStart.code(),
    close: () => running.close(),
  };
}
