import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { startDemoDms } from './demo/demo-dms.js';
import { createPaperlessClient } from './paperless-client.js';
import { serviceSecrets, type Secrets } from '../redaction.js';
import { trackLiveness, type LivenessTracker } from './dms-liveness.js';
import type { ReadPlan } from './read-plan.js';
import type { DmsClient, DmsForbiddenKind, DmsPing } from './types.js';

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
  /** When this state was learnt (ISO time; absent before the first answer). */
  checkedAt?: string;
  /** Since when the dms has not answered (ISO time): the first unanswered or failed ping since it last did. */
  notAnsweringSince?: string;
  /** The dms's web workers as configured (SVC_DMS_WORKERS): a read keeps this many requests at it and one waiting. */
  dmsWorkers: number;
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
  /** When the service last heard how the dms is (ISO time), null before the first answer. */
  checked_at: string | null;
  /** Since when the dms has not answered (ISO time), null while it answers. */
  not_answering_since: string | null;
  /**
   * The dms's web workers as configured (SVC_DMS_WORKERS): a run-all keeps this many requests at it and one more
   * waiting in its queue. The name is the API's; the figure is configured, not measured.
   */
  serves_at_once?: number | null;
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
    checked_at: status.checkedAt ?? null,
    not_answering_since: status.notAnsweringSince ?? null,
    serves_at_once: status.dmsWorkers,
    release_group: status.releaseGroup ?? null,
    release_differences: status.releaseDifferences ?? [],
  };
}

export interface DmsConnection {
  dms: DmsClient;
  info: DmsInfo;
  /** Whether the dms answers; cached for a few seconds, else waits for a ping (the deep check, the catch-up). */
  status(): Promise<DmsStatus>;
  /** The last known state at once, whatever the dms does (health); a background ping keeps it current. */
  lastKnownStatus(): DmsStatus;
  close(): Promise<void>;
}

const STATUS_TTL_MS = 5000;
// Health never waits for a ping, so a slow dms may take its time; after SLOW_PING_MS it counts as not answering.
const PING_TIMEOUT_MS = 10_000;
const SLOW_PING_MS = 2000;
const PING_CLOSE_GRACE_MS = 1000;

/** SVC_DMS_URL set → the Paperless client; unset → the demo dms (server/dms/demo/, in process, on loopback). */
export async function createDmsConnection(
  config: Config,
  logger: Logger,
  secrets: Secrets = serviceSecrets(config),
): Promise<DmsConnection> {
  const readPlan: ReadPlan = { pageSize: config.dmsPageSize, dmsWorkers: config.dmsWorkers };
  let url = config.dmsUrl;
  let token = config.dmsToken;
  let stopDemo: (() => Promise<void>) | null = null;
  if (url === null) {
    const demo = await startDemoDms({ host: '127.0.0.1', port: 0, logger });
    url = demo.url;
    token = demo.token;
    stopDemo = () => demo.close();
    logger.info(
      `demo dms: SVC_DMS_URL is not set, so the built-in demo dms (Paperless-ngx API) with ${demo.store.documents.size} sample documents runs at ${demo.url} (changes are kept in memory only)`,
    );
  } else if (!token) {
    logger.warn(`dms: SVC_DMS_URL is ${url} but SVC_DMS_TOKEN is not set; Paperless will answer 401`);
  }
  // Bound below: a failed request of the main client marks the dms unreachable at once, not at the next ping.
  let liveness: LivenessTracker<DmsPing> | undefined = undefined;
  const dms = createPaperlessClient({
    url,
    token,
    logger,
    retryBaseMs: config.timings?.dmsRetryBaseMs,
    timeoutMs: config.timings?.dmsTimeoutMs,
    vocabularyTtlMs: config.timings?.vocabularyTtlMs,
    onNoDms: (message) => liveness?.down(message),
    maxAnswerBytes: config.dmsMaxAnswerMb * 1024 * 1024,
    readPlan,
    secrets,
  });
  // A separate client for health pings: no retries, one at a time, never queued behind a busy job.
  const pinger = createPaperlessClient({
    url,
    token,
    timeoutMs: PING_TIMEOUT_MS,
    retries: 0,
    maxInFlight: 1,
    secrets,
  });
  const info: DmsInfo = { url: dms.url, demo: stopDemo !== null };
  liveness = trackLiveness(() => pinger.ping(), {
    ttlMs: config.timings?.dmsStatusTtlMs ?? STATUS_TTL_MS,
    slowMs: SLOW_PING_MS,
  });
  // The first ping before the service listens (at most SLOW_PING_MS), so the first health answer knows a quick dms;
  // then, within the same wait, the vocabulary, so the first job after start finds it cached.
  const ready = Date.now() + SLOW_PING_MS;
  await liveness.warmUp(SLOW_PING_MS);
  await within(dms.vocabulary(), Math.max(0, ready - Date.now()));
  const iso = (ms: number | null) => (ms === null ? undefined : new Date(ms).toISOString());

  const lastKnownStatus = (): DmsStatus => {
    const known = liveness.known();
    const { ok: _ok, ...ping } = known.last ?? { ok: false };
    return {
      ...info,
      ...ping,
      reachable: known.reachable,
      ...(known.waitingError ? { error: known.waitingError } : {}),
      checkedAt: iso(known.checkedAt),
      notAnsweringSince: iso(known.notAnsweringSince),
      dmsWorkers: readPlan.dmsWorkers,
    };
  };

  return {
    dms,
    info,
    async status() {
      await liveness.fresh().catch(() => undefined);
      return lastKnownStatus();
    },
    lastKnownStatus,
    async close() {
      await dms.close();
      // A health ping held open by a slow dms is only a read: shutdown does not wait out its timeout.
      await Promise.race([pinger.close(), new Promise((resolve) => setTimeout(resolve, PING_CLOSE_GRACE_MS).unref())]);
      await stopDemo?.();
    },
  };
}

/** Waits for a start-up read at most `waitMs`, whatever its outcome (a dms that is down is the ping's to report). */
async function within(read: Promise<unknown>, waitMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)));
  await Promise.race([
    read.then(
      () => undefined,
      () => undefined,
    ),
    waited,
  ]);
  clearTimeout(timer);
}
