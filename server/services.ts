import type { AuthService } from './auth/auth-service.js';
import type { DesktopSignIn } from './auth/desktop-sign-in.js';
import type { Config } from './config.js';
import type { DmsHealth, DmsInfo, DmsStatus } from './dms/dms-connection.js';
import type { DocumentHit } from './dms/document-search.js';
import type { DmsClient } from './dms/types.js';
import type { DocumentView } from './runs/document-view.js';
import type { TraceStore } from './history/trace-store.js';
import type { Logger } from './log.js';
import type { RuleStore } from './rules/index.js';
import type { RunService } from './runs/run-service.js';
import type { JobService } from './runs/jobs/job-service.js';
import type { WebhookService } from './runs/webhook/webhook-service.js';
import type { ScheduleService } from './runs/schedules/schedule-service.js';
import type { ArrivalStatus, CatchUpService } from './runs/catch-up/catch-up-service.js';
import type { DmsConnectionReport } from './settings/dms-connection-test.js';
import type { FirstStartState, RequestOrigin } from './settings/first-admin.js';
import type { SettingsService } from './settings/settings-service.js';

export type { RequestOrigin } from './settings/first-admin.js';

/**
 * Everything the HTTP layer can reach. Built in one place (`compose.ts`) and handed to `createApp`,
 * so tests, `npm start` and the desktop app wire the service identically.
 */
export interface Services {
  config: Config;
  logger: Logger;
  auth: AuthService;
  startedAt: number;
  /** The persistent trace history. */
  history: TraceStore;
  /** The one run pipeline: manual runs, the webhook's and the jobs' entries, the echo guard. */
  runs: RunService;
  /** Background jobs (one rule over all documents, revert) and the event records. */
  jobs: JobService;
  /** The dms webhook: payload in, bounded de-duplicating queue, echo guard. */
  webhook: WebhookService;
  /** Rules with `schedule:`, run as background jobs at their times. */
  schedules: ScheduleService;
  /** Catch-up after downtime and polling: documents changed in the dms while the service was not listening. */
  catchUp: CatchUpService;
  /** One-time tokens for the desktop window's password-less sign-in. */
  desktopSignIn: DesktopSignIn;
  /** The settings page: config.yml in the data dir, applied live where possible. */
  settings: SettingsService;
  /** The rule files in the rules dir: CRUD, drafts, validation, the loaded rules and reload. */
  rules: RuleStore;
  /** The dms (Paperless-ngx client; the in-process demo dms when SVC_DMS_URL is unset). */
  dms: DmsClient;
  /** The dms URL in use and whether it is the demo dms. */
  dmsInfo: DmsInfo;
  /** Whether the dms answers, cached for a few seconds; never throws. */
  dmsStatus(): Promise<DmsStatus>;
  /** The run panel's document picker: the first documents whose title contains the text. */
  findDocuments(text: string): Promise<{ count: number; documents: DocumentHit[] }>;
  /** The document panel: one document in names, with where the loaded rules' content patterns match. */
  documentView(id: number): Promise<DocumentView>;
  /** The newest part of the service log file (desktop app); not found when the service logs to its console. */
  serviceLog(): string;
  /** Titles of documents by id (at most 200), so lists name documents. */
  documentTitles(ids: number[]): Promise<Record<number, string>>;
  /** How documents reach the service: when the dms last did, how many wait, and a failing catch-up. */
  arrival(): ArrivalStatus;
  /**
   * What health shows the admin about the dms: address, Paperless version, what the token may not view.
   * The last known state at once, whatever the dms does; `deep` waits for a ping younger than a few seconds.
   */
  dmsHealth(options?: { deep?: boolean }): Promise<DmsHealth>;
  /** The settings page's "Test connection": tries a dms URL and token before they are saved. */
  testDmsConnection(body: unknown): Promise<DmsConnectionReport>;
  /** The first start's one-time setup (no admin yet, this machine only). */
  firstStart: {
    state(origin: RequestOrigin): FirstStartState;
    createAdmin(body: unknown, origin: RequestOrigin): Promise<{ username: string; session: string }>;
  };
  /** Flushes and stops everything long-lived, in reverse order of creation. */
  close(): Promise<void>;
}
