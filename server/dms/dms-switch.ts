import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { serviceSecrets } from '../redaction.js';
import { createDmsConnection, type DmsConnection, type DmsInfo } from './dms-connection.js';
import type { DmsClient } from './types.js';

/** Which dms to talk to: a Paperless URL and token, or (url null) the built-in demo dms. */
export interface DmsTarget {
  url: string | null;
  token: string | null;
}

/**
 * The dms connection the running service uses, replaceable while it runs: `dms` and `info` are stable objects
 * that always reach the connection in use, so services wired once at start follow a switch without a restart.
 */
export interface SwitchableDms extends DmsConnection {
  /**
   * Connects to `target` (its client, health pings, release detection and vocabulary are new), then puts it in
   * place of the old connection, which is closed. Calls made before the switch finish on the old connection.
   */
  switchTo(target: DmsTarget): Promise<void>;
  /** Stable name of the dms in use: "demo", or its URL (the demo dms's port changes with every start). */
  key(): string;
}

/** `dmsUrl` unset: the demo dms; else the Paperless client (see createDmsConnection). */
export async function createSwitchableDms(config: Config, logger: Logger): Promise<SwitchableDms> {
  // The settings' own secrets stay live (not the copy's): a token changed later is redacted from then on.
  const secrets = serviceSecrets(config);
  const connect = (target: DmsTarget) =>
    createDmsConnection({ ...config, dmsUrl: target.url, dmsToken: target.token }, logger, secrets);
  let current: DmsConnection = await connect({ url: config.dmsUrl, token: config.dmsToken });
  let switching: Promise<void> = Promise.resolve();

  // Every property read goes to the connection in use at that moment, whatever the DmsClient interface holds.
  const dms = new Proxy({} as DmsClient, {
    get(_target, property) {
      const client = current.dms;
      const value: unknown = Reflect.get(client, property, client);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(client) : value;
    },
  });
  const info: DmsInfo = {
    get url() {
      return current.info.url;
    },
    get demo() {
      return current.info.demo;
    },
  };

  return {
    dms,
    info,
    status: () => current.status(),
    lastKnownStatus: () => current.lastKnownStatus(),
    key: () => (current.info.demo ? 'demo' : current.info.url),
    switchTo(target) {
      // One switch at a time, in the order asked.
      switching = switching
        .catch(() => undefined)
        .then(async () => {
          const next = await connect(target);
          const old = current;
          current = next;
          logger.info(
            `dms: now ${next.info.demo ? `the demo dms at ${next.info.url}` : next.info.url} (was ${old.info.url})`,
          );
          await old.close();
        });
      return switching;
    },
    async close() {
      await switching.catch(() => undefined);
      await current.close();
    },
  };
}
