import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { createPaperlessClient } from './paperless-client.js';
import { startSimulator } from './simulator/simulator.js';
import type { DmsClient, DmsForbiddenKind } from './types.js';

export interface DmsInfo {
  /** The dms base URL in use (the demo dms's loopback address in demo mode). */
  url: string;
  /** True when no SVC_DMS_URL is set and the built-in demo dms serves the sample documents. */
  demo: boolean;
}

export interface DmsStatus extends DmsInfo {
  reachable: boolean;
  /** Paperless version, when it answered. */
  version?: string;
  error?: string;
  /** The API version the client speaks with it, and the newest the dms allows (`X-Api-Version`). */
  apiVersion?: number;
  serverApiVersion?: number;
  /** The Paperless-ngx releases the service supports. */
  supportedVersions?: string;
  /** What the token may not view (e.g. custom fields without `view_customfield`). */
  forbidden?: DmsForbiddenKind[];
  /** The release group the client follows and what differs for it (`DmsPing`). */
  releaseGroup?: string;
  releaseDifferences?: string[];
}

/** The dms part of `GET /api/health` (the settings page shows it too). */
export interface DmsHealth {
  url: string;
  demo: boolean;
  reachable: boolean;
  /** Paperless-ngx release (`X-Version`), null until it answered. */
  version: string | null;
  /** The API version the service speaks with it. */
  api_version: number | null;
  supported_versions: string | null;
  /** What the token may not view, e.g. `{kind: 'custom_fields', permission: 'view_customfield'}`. */
  forbidden: DmsForbiddenKind[];
  /** Why it is not reachable (an unsupported Paperless version names the one it found). */
  error: string | null;
  /** The release group the service follows, e.g. "2.16–2.18", and what it does differently for it. */
  release_group?: string | null;
  release_differences?: string[];
}

export function dmsHealth(status: DmsStatus): DmsHealth {
  return {
    url: status.url,
    demo: status.demo,
    reachable: status.reachable,
    version: status.version ?? null,
    api_version: status.apiVersion ?? null,
    supported_versions: status.supportedVersions ?? null,
    forbidden: status.forbidden ?? [],
    error: status.error ?? null,
    release_group: status.releaseGroup ?? null,
    release_differences: status.releaseDifferences ?? [],
  };
}

export interface DmsConnection {
  dms: DmsClient;
  info: DmsInfo;
  /** Whether the dms answers; cached for a few seconds so health checks never hammer it. */
  status(): Promise<DmsStatus>;
  close(): Promise<void>;
}

const STATUS_TTL_MS = 5000;
const PING_TIMEOUT_MS = 2000;

/** SVC_DMS_URL set → the Paperless client; unset → the demo dms (the simulator, in process, on loopback). */
export async function createDmsConnection(config: Config, logger: Logger): Promise<DmsConnection> {
  let url = config.dmsUrl;
  let token = config.dmsToken;
  let stopDemo: (() => Promise<void>) | null = null;
  if (url === null) {
    const sim = await startSimulator({ host: '127.0.0.1', port: 0, logger });
    url = sim.url;
    token = sim.token;
    stopDemo = () => sim.close();
    logger.info(
      `demo dms: SVC_DMS_URL is not set, so a built-in Paperless-ngx simulator with ${sim.store.documents.size} sample documents runs at ${sim.url} (changes are kept in memory only)`,
    );
  } else if (!token) {
    logger.warn(`dms: SVC_DMS_URL is ${url} but SVC_DMS_TOKEN is not set; Paperless will answer 401`);
  }
  const dms = createPaperlessClient({ url, token, logger });
  // A separate client for health pings: short timeout, no retries, never queued behind a busy job.
  const pinger = createPaperlessClient({ url, token, timeoutMs: PING_TIMEOUT_MS, retries: 0, maxInFlight: 1 });
  const info: DmsInfo = { url: dms.url, demo: stopDemo !== null };
  let cached: { at: number; status: Promise<DmsStatus> } | null = null;

  return {
    dms,
    info,
    status() {
      const now = Date.now();
      if (!cached || now - cached.at > STATUS_TTL_MS) {
        cached = {
          at: now,
          status: pinger.ping().then(({ ok, ...ping }) => ({ ...info, reachable: ok, ...ping })),
        };
      }
      return cached.status;
    },
    async close() {
      await dms.close();
      await pinger.close();
      await stopDemo?.();
    },
  };
}
