import type { AuthService } from './auth/auth-service.js';
import type { DesktopSignIn } from './auth/desktop-sign-in.js';
import type { Config } from './config.js';
import type { DmsInfo } from './dms/dms-connection.js';
import type { DmsHealthReport } from './dms/dms-health.js';
import type { DmsClient } from './dms/types.js';
import type { DocumentService } from './runs/documents/document-service.js';
import type { ServiceLog } from './log-file.js';
import type { TraceStore } from './history/trace-store.js';
import type { Logger } from './log.js';
import type { RuleStore } from './rules/rules.js';
import type { RunService } from './runs/manual/run-service.js';
import type { JobService } from './runs/jobs/job-service.js';
import type { WebhookService } from './runs/webhook/webhook-service.js';
import type { ScheduleService } from './runs/schedules/schedule-service.js';
import type { CatchUpService } from './runs/catch-up/catch-up-service.js';
import type { ArrivalReport } from './runs/arrival/arrival-status.js';
import type { DmsConnectionTester } from './settings/dms-connection-test.js';
import type { DemoNames } from './settings/demo-names.js';
import type { FirstStart } from './settings/first-admin.js';
import type { SettingsService } from './settings/settings-service.js';
import type { SuggestionService } from './suggest/suggest-service.js';

/**
 * Everything the HTTP layer can reach. Built in one place (`compose.ts`) and handed to `createApp`,
 * so tests, `npm start` and the desktop app wire the service identically. `createApp` hands each
 * route only the services it uses.
 */
export interface Services {
  config: Config;
  logger: Logger;
  auth: AuthService;
  startedAt: number;
  /** The persistent trace history. */
  history: TraceStore;
  /** Manual runs of one document (`POST /api/run?document=`, the editor's dry run), through the one run pipeline. */
  runs: RunService;
  /** Background jobs (one rule over all documents, revert) and the event records. */
  jobs: JobService;
  /** Rules learned from the documents a person labelled (`POST /api/suggestions`), as background events. */
  suggestions: SuggestionService;
  /** The dms webhook: payload in, bounded de-duplicating queue, the echo ledger's check. */
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
  /** The Web UI's reads of documents: the run panel's picker, titles for lists, the document panel. */
  documents: DocumentService;
  /** The newest part of the service log file (desktop app); not found when the service logs to its console. */
  serviceLog: ServiceLog;
  /** How documents reach the service: when the dms last did, how many wait, and a failing catch-up. */
  arrival: ArrivalReport;
  /** What health shows the admin about the dms: address, Paperless version, what the token may not view. */
  dmsHealth: DmsHealthReport;
  /** The settings page's "Test connection": tries a dms URL and token before they are saved. */
  dmsTest: DmsConnectionTester;
  /** Names created in the demo dms from a validation error (refused for any other dms). */
  demoNames: DemoNames;
  /** The first start's one-time setup (no admin yet, this machine only). */
  firstStart: FirstStart;
  /** Flushes and stops everything long-lived, in reverse order of creation. */
  close(): Promise<void>;
}
