import path from 'node:path';
import { createAuthService } from './auth/auth-service.js';
import { createDesktopSignIn } from './auth/desktop-sign-in.js';
import { loadOrCreateSessionSecret } from './auth/secret.js';
import { prepareDirectories, type Config } from './config.js';
import { createDmsConnection } from './dms/dms-connection.js';
import { findDocumentsByTitle } from './dms/document-search.js';
import { openTraceStore } from './history/trace-store.js';
import type { Logger } from './log.js';
import { createRecentWrites } from './runs/recent-writes.js';
import { createRunService } from './runs/run-service.js';
import { createJobService } from './runs/jobs/job-service.js';
import { createJobPipeline, webhookRunner } from './runs/pipeline-for-jobs.js';
import { createWebhookService } from './runs/webhook/webhook-service.js';
import { openEventStore } from './history/event-store.js';
import { EXAMPLE_RULES_DIR } from './project-paths.js';
import { createRuleStore } from './rules/index.js';
import type { Services } from './services.js';
import { createSettingsService } from './settings/settings-service.js';

/** The composition root: the one place where long-lived services are created and wired together. */
export async function createServices(config: Config, logger: Logger): Promise<Services> {
  prepareDirectories(config);
  const closers: Array<() => Promise<void>> = [];

  const auth = createAuthService(config, loadOrCreateSessionSecret(config.dataDir, config.jwtSecret));
  const desktopSignIn = createDesktopSignIn();
  const settings = createSettingsService(config, logger);

  // SVC_DMS_URL unset: the demo dms (simulator) starts here, on loopback, and stops with the service.
  const dmsConnection = await createDmsConnection(config, logger);
  closers.push(() => dmsConnection.close());

  const history = await openTraceStore({ dir: path.join(config.dataDir, 'traces'), retention: config.traceRetention, logger });
  closers.push(() => history.close());

  // Loaded before the server listens, so the first request already sees the rules; the watcher closes on shutdown.
  const rules = await createRuleStore({
    rulesDir: config.rulesDir,
    dataDir: config.dataDir,
    examplesDir: EXAMPLE_RULES_DIR,
    logger,
    templateEnv: config.templateEnv,
    vocabulary: () => dmsConnection.dms.vocabulary(),
  });
  closers.push(() => rules.close());

  // The one run pipeline (manual runs, webhook, jobs); every write it makes marks the webhook echo guard.
  const runs = createRunService({ dms: dmsConnection.dms, rules, history, recentWrites: createRecentWrites(), logger });

  // Background jobs and the dms webhook. Events persist in the data dir; at shutdown the webhook queue
  // stops taking work and a running job ends as `interrupted` (closers run in reverse, before the history closes).
  const events = await openEventStore(config.dataDir, logger);
  closers.push(() => events.close());
  const jobs = createJobService({
    dms: dmsConnection.dms,
    events,
    pipeline: createJobPipeline({ dms: dmsConnection.dms, rules, history, recentWrites: runs.recentWrites }),
    recentWrites: runs.recentWrites,
    traces: history,
    getRule: (id) => rules.getRule(id)?.definition,
    logger,
  });
  closers.push(() => jobs.stop());
  const webhook = createWebhookService({
    dms: dmsConnection.dms,
    events,
    recentWrites: runs.recentWrites,
    logger,
    dryRun: () => config.webhookDryRun,
    runner: webhookRunner(runs, rules),
  });
  closers.push(() => webhook.stop());

  return {
    config,
    logger,
    auth,
    desktopSignIn,
    settings,
    history,
    runs,
    jobs,
    webhook,
    rules,
    dms: dmsConnection.dms,
    dmsInfo: dmsConnection.info,
    dmsStatus: () => dmsConnection.status(),
    findDocuments: (text) => findDocumentsByTitle(dmsConnection.dms, text),
    startedAt: Date.now(),
    async close() {
      for (const close of closers.reverse()) await close();
    },
  };
}
