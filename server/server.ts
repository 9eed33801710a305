import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { createServices, type ServiceOptions } from './compose.js';
import type { Config } from './config.js';
import { describeConfig } from './config.js';
import type { Logger } from './log.js';
import type { Services } from './services.js';

export interface RunningServer {
  url: string;
  services: Services;
  /** Stops accepting, lets in-flight requests finish (bounded), then flushes and closes the services. */
  close(): Promise<void>;
}

const SHUTDOWN_GRACE_MS = 5000;

/** Creates the services and the app, and listens. Used by `npm start`, the desktop app and the tests. */
export async function startServer(
  config: Config,
  logger: Logger,
  options: ServiceOptions = {},
): Promise<RunningServer> {
  const services = await createServices(config, logger, options);
  const app = createApp(services);
  const server = http.createServer(app);
  server.keepAliveTimeout = 5000;

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    // A port in use: what was started for it (the demo dms, the workers, the stores' timers) would keep the process
    // alive after the caller reported the error and meant to exit.
    await services.close();
    throw err;
  }

  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  logStartup(logger, url, services);

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
      await services.close();
    })();
    return closing;
  };
  return { url, services, close };
}

function logStartup(logger: Logger, url: string, services: Services): void {
  const { config, auth } = services;
  const settings = describeConfig(config);
  logger.info(`dms-rules listening on ${url}`);
  if (config.host === '::') logger.info('listening on all addresses, IPv6 and IPv4 (dual stack, SVC_HOST=::)');
  else if (config.host === '0.0.0.0')
    logger.info('listening on all IPv4 addresses only; SVC_HOST=:: listens on IPv6 and IPv4');
  logger.info(`rules dir: ${config.rulesDir}`);
  logger.info(`data dir:  ${config.dataDir}`);
  logger.info(
    `admin account: ${auth.adminConfigured ? `"${config.adminUser}"` : 'none yet: the first page opened on this machine offers to create one (or set SVC_ADMIN_USER and SVC_ADMIN_PASSWORD)'}`,
  );
  const setupCode = services.firstStart.code();
  if (setupCode !== null) {
    // The code travels in the fragment, which the browser never sends (no proxy or access log sees it).
    logger.info(
      `first start: create the admin account at ${url}/login#setup-code=${setupCode} (setup code ${setupCode}, also in ${services.firstStart.codeFile})`,
    );
  }
  logger.info(
    `API token: ${auth.apiTokenConfigured ? 'configured' : 'none (bearer access to the shared routes refused; set SVC_API_TOKEN)'}`,
  );
  if (config.webhookToken) logger.info('webhook token: configured (SVC_WEBHOOK_TOKEN, webhook only)');
  else if (auth.apiTokenConfigured) {
    logger.warn(
      'the webhook accepts SVC_API_TOKEN, which also runs jobs and reads traces; set SVC_WEBHOOK_TOKEN and put that in the Paperless workflow instead',
    );
  } else logger.info('webhook token: none (the webhook is refused; set SVC_WEBHOOK_TOKEN)');
  logger.info(
    `settings: ${Object.entries(settings)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
  );
}
