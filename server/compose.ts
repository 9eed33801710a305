import path from 'node:path';
import { createAuthService } from './auth/auth-service.js';
import { createDesktopSignIn } from './auth/desktop-sign-in.js';
import { loadOrCreateSessionSecret } from './auth/secret.js';
import { openSessionRevocations } from './auth/session-revocations.js';
import { prepareDirectories, type Config } from './config.js';
import { createDmsConnection, dmsHealth } from './dms/dms-connection.js';
import { createEvalPool, inlineEvaluator } from './eval/eval-pool.js';
import { makeDataDirPrivate } from './data-dir-privacy.js';
import { documentTitles, findDocumentsByTitle } from './dms/document-search.js';
import { documentView } from './runs/document-view.js';
import { readServiceLog } from './log-file.js';
import { testDmsConnection } from './settings/dms-connection-test.js';
import { createFirstAdmin, firstStartState } from './settings/first-admin.js';
import { openTraceStore } from './history/trace-store.js';
import type { Logger } from './log.js';
import { arrivalStatus, createCatchUpService } from './runs/catch-up/catch-up-service.js';
import { openCursorStore } from './runs/catch-up/cursor-store.js';
import { openEchoLedger } from './runs/echo-ledger.js';
import { createRunService } from './runs/run-service.js';
import { createJobService } from './runs/jobs/job-service.js';
import { createJobPipeline, webhookRunner } from './runs/pipeline-for-jobs.js';
import { createWebhookService } from './runs/webhook/webhook-service.js';
import { isFinished, openEventStore } from './history/event-store.js';
import { createScheduleService } from './runs/schedules/schedule-service.js';
import { EXAMPLE_RULES_DIR } from './project-paths.js';
import { createRuleStore } from './rules/index.js';
import type { Services } from './services.js';
import { createSettingsService } from './settings/settings-service.js';
import { createNotifier } from './runs/notify/notifier.js';

/** The composition root: the one place where long-lived services are created and wired together. */
export async function createServices(config: Config, logger: Logger): Promise<Services> {
  prepareDirectories(config);
  makeDataDirPrivate(config.dataDir);
  const closers: Array<() => Promise<void>> = [];

  const auth = createAuthService(config, loadOrCreateSessionSecret(config.dataDir, config.jwtSecret), {
    revocations: openSessionRevocations(path.join(config.dataDir, 'signed-out-sessions.json'), logger),
  });
  const desktopSignIn = createDesktopSignIn();
  const settings = createSettingsService(config, logger);
  const notifier = createNotifier(() => config.notifyTargets);

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
    // Saving checks and completes user and group names too.
    vocabulary: () => dmsConnection.dms.vocabulary({ principals: true }),
    notifyTargets: () => notifier.names(),
  });
  closers.push(() => rules.close());

  // Rules are evaluated in worker threads, each rule on each document within a time budget (docs/security.md).
  const evaluator = config.evalWorkers > 0 ? createEvalPool({ workers: config.evalWorkers, budgetMs: config.evalBudgetMs, logger }) : inlineEvaluator();
  closers.push(() => evaluator.close());

  // The echo guard by state: what the service last left each document as, kept across restarts.
  const echoes = openEchoLedger({
    file: path.join(config.dataDir, 'echo-ledger.json'),
    dms: dmsConnection.dms,
    logger,
    loopMaxWrites: config.loopMaxWrites,
    loopWindowMs: config.loopWindowMinutes * 60_000,
  });
  closers.push(() => echoes.close());

  // The one run pipeline (manual runs, webhook, jobs); every write it makes marks the webhook echo guard.
  const runs = createRunService({ dms: dmsConnection.dms, rules, history, recentWrites: echoes, logger, notifier, evaluator });

  // Background jobs and the dms webhook. Events persist in the data dir; at shutdown the webhook queue
  // stops taking work and a running job ends as `interrupted` (closers run in reverse, before the history closes).
  const events = await openEventStore(config.dataDir, logger);
  closers.push(() => events.close());
  const jobs = createJobService({
    dms: dmsConnection.dms,
    events,
    pipeline: createJobPipeline({ dms: dmsConnection.dms, rules, history, recentWrites: runs.recentWrites, notifier, evaluator }),
    recentWrites: runs.recentWrites,
    traces: history,
    getRule: (id) => rules.getRule(id)?.definition,
    logger,
  });
  closers.push(() => jobs.stop());
  const runner = webhookRunner(runs, rules);
  // Catch-up and polling: documents changed while the service was not listening (issue 13).
  const catchUp = createCatchUpService({
    dms: dmsConnection.dms,
    events,
    echoes,
    cursor: openCursorStore(path.join(config.dataDir, 'dms-cursor.json'), logger),
    logger,
    run: (document, trigger, ctx) => runner.run(document, trigger, { ...ctx, source: 'catchup' }),
    dryRun: () => config.webhookDryRun,
    startFrom: config.catchUpFrom,
    pollMinutes: () => config.pollMinutes ?? (config.apiToken ? 0 : 5),
    dmsReachable: async () => (await dmsConnection.status()).reachable,
  });
  const webhook = createWebhookService({
    dms: dmsConnection.dms,
    events,
    echoes,
    logger,
    dryRun: () => config.webhookDryRun,
    runner,
    heard: () => catchUp.heard(),
  });
  closers.push(() => webhook.stop());
  closers.push(() => catchUp.stop());
  catchUp.start();

  // Rules with `schedule:` run as background jobs; the last run of each is kept in the data dir for catch-up.
  const schedules = createScheduleService({
    rules: () => rules.loadedRules().flatMap((r) => (r.compiled.enabled && r.compiled.schedule ? [{ ruleId: r.id, schedule: r.compiled.schedule }] : [])),
    startJob: (ruleId, dryRun) => jobs.startRuleJob({ ruleId, dryRun }).event_id,
    jobActive: (eventId) => {
      const event = events.get(eventId);
      return event !== undefined && !isFinished(event.status);
    },
    stateFile: path.join(config.dataDir, 'schedules.json'),
    logger,
  });
  await schedules.start();
  const stopReloadListener = rules.onReload(() => void schedules.tick());
  closers.push(async () => {
    stopReloadListener();
    await schedules.stop();
  });

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
    schedules,
    catchUp,
    rules,
    dms: dmsConnection.dms,
    dmsInfo: dmsConnection.info,
    dmsStatus: () => dmsConnection.status(),
    findDocuments: (text) => findDocumentsByTitle(dmsConnection.dms, text),
    documentView: (id) => documentView({ dms: dmsConnection.dms, dmsUrl: dmsConnection.info.url, rules: () => rules.loadedRules() }, id),
    documentTitles: (ids) => documentTitles(dmsConnection.dms, ids),
    serviceLog: () => readServiceLog(config.dataDir),
    arrival: () => arrivalStatus(catchUp.state(), { waiting: webhook.queue.waiting, running: webhook.queue.running, echoesSkipped: webhook.echoesSkipped }),
    dmsHealth: async () => dmsHealth(await dmsConnection.status()),
    testDmsConnection: (body) => testDmsConnection({ current: dmsConnection.dms, currentUrl: config.dmsUrl, currentToken: config.dmsToken }, body),
    firstStart: {
      state: (origin) => firstStartState(auth, origin),
      createAdmin: (body, origin) => createFirstAdmin({ auth, settings }, body, origin),
    },
    startedAt: Date.now(),
    async close() {
      for (const close of closers.reverse()) await close();
    },
  };
}
