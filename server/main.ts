import { ConfigError, loadConfig } from './config.js';
import { limitHeapGrowth } from './heap-growth.js';
import { createConsoleLogger } from './log.js';
import { logUncaught } from './process-hooks.js';
import { startServer } from './server.js';
import { errorMessage } from './error-message.js';

/** `npm start`: configure from the environment, listen, and shut down cleanly on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  limitHeapGrowth();
  const logger = createConsoleLogger();
  logUncaught(logger);
  let running;
  try {
    running = await startServer(loadConfig(), logger);
  } catch (err) {
    if (err instanceof ConfigError) {
      logger.error(`configuration error: ${err.message}`);
    } else if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      logger.error(`cannot listen: the address is already in use (${errorMessage(err)}); set SVC_PORT to a free port`);
    } else {
      logger.error(`start-up failed: ${(err as Error).stack ?? String(err)}`);
    }
    process.exitCode = 1;
    return;
  }
  const server = running;
  const shutdown = (signal: string) => {
    logger.info(`${signal} received: finishing in-flight requests and flushing stores`);
    server.close().then(
      () => logger.info('stopped'),
      (err: unknown) => {
        logger.error(`shutdown failed: ${String(err)}`);
        process.exitCode = 1;
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

void main();
