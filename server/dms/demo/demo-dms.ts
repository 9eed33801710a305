import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../log.js';
import { handleApi, type ApiHandlerDeps } from './api-handler.js';
import { resolveProfile } from './profiles.js';
import { superuser } from './sim-users.js';
import { SIM_USER } from './sim-types.js';
import { createStore, type SimStore } from './store.js';

// The demo dms: when SVC_DMS_URL is unset, the service talks to this in-process Paperless-ngx on loopback, seeded
// with the sample documents and kept in memory. It speaks the API of the newest supported release and nothing
// else; the development simulator (tools/paperless-sim/) adds faults, slow pacing and its control routes on top.

export interface DemoDms {
  /** Base URL (no trailing slash), e.g. http://127.0.0.1:41234 */
  url: string;
  /** The API token the service uses (random, 40 hex characters like DRF's). */
  token: string;
  store: SimStore;
  close(): Promise<void>;
}

export interface DemoDmsOptions {
  host?: string;
  /** 0 (default) = any free port. */
  port?: number;
  logger?: Logger;
}

/** Starts listening on host:port and returns the server's base URL (an IPv6 address in brackets). */
export async function listen(server: http.Server, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${shown}:${address.port}`;
}

/** Starts the demo dms with the sample documents. */
export async function startDemoDms(options: DemoDmsOptions = {}): Promise<DemoDms> {
  const token = randomBytes(20).toString('hex');
  const store = createStore();
  const deps: ApiHandlerDeps = {
    store,
    // No Paperless workflows run in the demo: a write fires no "Document Updated" webhook.
    hooks: { documentUpdated: () => undefined, documentAdded: () => undefined },
    token,
    username: 'anna',
    password: 'demo',
    profile: resolveProfile(undefined),
    users: { owner: superuser(SIM_USER.id, SIM_USER.username), byToken: new Map() },
  };
  const server = http.createServer((req, res) => {
    handleApi(req, res, deps).catch((err: unknown) => {
      options.logger?.error(`demo dms: ${(err as Error).message}`);
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  const url = await listen(server, options.host ?? '127.0.0.1', options.port ?? 0);
  return {
    url,
    token,
    store,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
