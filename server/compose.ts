import { createDemoNames } from './settings/demo-names.js';
import path from 'node:path';
import { createAuthService } from './auth/auth-service.js';
import { createDesktopSignIn } from './auth/desktop-sign-in.js';
import { createLoginThrottle } from './auth/login-throttle.js';
import { loadOrCreateSessionSecret } from './auth/secret.js';
import { openSessionRevocations } from './auth/session-revocations.js';
import { prepareDirectories, type Config } from './config.js';
import { createDmsHealthReport } from './dms/dms-health.js';
import { createSwitchableDms } from './dms/dms-switch.js';
import { createEvalPool, inlineEvaluator } from './eval/eval-pool.js';
import { createRuleTestPool } from './eval/rule-test-runner.js';
import { makeDataDirPrivate } from './data-dir-privacy.js';
import { createDocumentService } from './runs/documents/document-service.js';
import { serviceLog } from './log-file.js';
import { createDmsConnectionTester } from './settings/dms-connection-test.js';
import { createFirstStart } from './settings/first-admin.js';
import { openTraceStore } from './history/trace-store.js';
import type { Logger } from './log.js';
import { createCatchUpService, pollMinutesOf } from './runs/catch-up/catch-up-service.js';
import { createArrivalReport } from './runs/arrival/arrival-status.js';
import { catchUpPerDms } from './runs/catch-up/catch-up-per-dms.js';
import { openDmsCursors } from './runs/catch-up/dms-cursors.js';
import { openEchoLedger } from './runs/echo/echo-ledger.js';
import { createFrontDoor } from './runs/arrival/arrive.js';
import { openWriteJournal } from './runs/journal/write-journal.js';
import { createArrivalJournal } from './runs/journal/arrival-journal.js';
import { createCreationLimiter } from './runs/pipeline/creation-guard.js';
import { createRunService } from './runs/manual/run-service.js';
import { createJobService } from './runs/jobs/job-service.js';
import { createSuggestionService } from './suggest/suggest-service.js';
import { createRunPipeline } from './runs/pipeline/run-pipeline.js';
import { createAutomaticRunner } from './runs/arrival/automatic-runner.js';
import { createAttribution, type Attribution } from './runs/echo/attribution.js';
import { createDocumentLane } from './runs/lane/document-lane.js';
import { failedRunRetry } from './runs/arrival/failed-run-retry.js';
import { createWebhookService, DEFAULT_WEBHOOK_OPTIONS } from './runs/webhook/webhook-service.js';
import { createDeliveryWrites } from './runs/webhook/delivery-writes.js';
import { isActiveEvent, isFinished, openEventStore } from './history/event-store.js';
import { createScheduleService, scheduledRules } from './runs/schedules/schedule-service.js';
import { EXAMPLE_RULES_DIR } from './project-paths.js';
import { createRuleStore } from './rules/rules.js';
import type { Services } from './services.js';
import { createSettingsService } from './settings/settings-service.js';
import { dmsBusyReason, runsFinished, type LiveDms } from './settings/dms-change.js';
import { ConflictError } from './app-errors.js';
import { createNotifier } from './runs/notify/notifier.js';
import { openIntentStore } from './runs/intents/intent-store.js';
import { createSideEffects } from './runs/intents/side-effects.js';
import { changeOrigin } from './runs/intents/change-origin.js';

/** How long a dms switch waits for the runs in flight to finish (each ends within the dms client's timeouts). */
const RUNS_FINISH_MS = 60_000;

/** The fewest deliveries run at once, even for a dms with one web worker. */
const MIN_DELIVERIES_AT_ONCE = 2;

/** What tests may replace; production passes nothing. */
export interface ServiceOptions {
  /** The sign-in throttle's clock (tests play out minutes of an attack without waiting). */
  now?: () => number;
  /** Copy the shipped example rules into an empty rules dir on first start (default true; off in tests that
   * bring their own rules, which would otherwise load and test six example files at every start). */
  exampleRules?: boolean;
}

/** The composition root: the one place where long-lived services are created and wired together. */
export async function createServices(config: Config, logger: Logger, options: ServiceOptions = {}): Promise<Services> {
  prepareDirectories(config);
  makeDataDirPrivate(config.dataDir);
  const closers: Array<() => Promise<void>> = [];

  // Rules are evaluated in worker threads, each rule on each document within a time budget (docs/security.md).
  // Started first: they load the engine while the rest starts, and the service listens once they are ready.
  const evaluator =
    config.evalWorkers > 0
      ? createEvalPool({ workers: config.evalWorkers, budgetMs: config.evalBudgetMs, logger })
      : inlineEvaluator();
  closers.push(() => evaluator.close());

  const auth = createAuthService(config, loadOrCreateSessionSecret(config.dataDir, config.jwtSecret, logger), {
    revocations: openSessionRevocations(path.join(config.dataDir, 'signed-out-sessions.json'), logger),
    throttle: createLoginThrottle({ now: options.now }),
  });
  const desktopSignIn = createDesktopSignIn();
  const notifier = createNotifier(() => config.notifyTargets);

  // SVC_DMS_URL unset: the demo dms (server/dms/demo/) starts here, on loopback, and stops with the service. The settings
  // page may switch it while the service runs: every service reaches the dms through `dmsConnection.dms`.
  const dmsConnection = await createSwitchableDms(config, logger);
  closers.push(() => dmsConnection.close());
  const liveDms: LiveDms = {
    busy: () =>
      dmsBusyReason({
        jobs: jobs
          .list({ limit: 1000 })
          .filter((e) => (e.kind === 'job' || e.kind === 'revert') && !isFinished(e.status)).length,
        deliveries: webhook.queue.waiting + webhook.queue.running,
        notes: intents.pending().filter((intent) => intent.kind === 'note').length,
      }),
    // Quiet first: the catch-up stops (a running one finishes) and no delivery starts, the runs that hold a document
    // finish, then nothing may be under way on the old dms, whose document ids mean other documents in the next one.
    switchTo: (target) =>
      catchUp.replace(async () => {
        webhook.queue.pause();
        try {
          if (lane.busy > 0) logger.info(`dms switch: waiting for the runs of ${lane.busy} document(s) to finish`);
          await runsFinished(lane, RUNS_FINISH_MS);
          const busy = liveDms.busy() ?? dmsBusyReason({ jobs: 0, deliveries: 0, notes: 0, runs: lane.busy });
          if (busy) throw new ConflictError(busy);
          await dmsConnection.switchTo(target);
          // What was learnt of the old dms goes: its Paperless user and its documents' states (each dms keeps its own cursor).
          attributionNow = createAttribution(dmsConnection.dms, logger, { runs: journal, dmsKey });
          echoes.forgetAll();
        } finally {
          webhook.queue.resume();
        }
      }),
  };
  const settings = createSettingsService(config, logger, liveDms, (target, msg) => notifier.send(target, msg));

  const history = await openTraceStore({
    dir: path.join(config.dataDir, 'traces'),
    retention: config.traceRetention,
    logger,
  });
  closers.push(() => history.close());

  // Rules' `tests:` run in a worker thread within the evaluation budget, like rules on documents (docs/security.md).
  const ruleTests = config.evalWorkers > 0 ? createRuleTestPool({ budgetMs: config.evalBudgetMs, logger }) : null;
  if (ruleTests) closers.push(() => ruleTests.close());

  // Loaded before the server listens, so the first request already sees the rules; the watcher closes on shutdown.
  const rules = await createRuleStore({
    runTests: ruleTests?.run,
    rulesDir: config.rulesDir,
    dataDir: config.dataDir,
    examplesDir: options.exampleRules === false ? undefined : EXAMPLE_RULES_DIR,
    logger,
    templateEnv: config.templateEnv,
    // Saving checks and completes user and group names too.
    vocabulary: () => dmsConnection.dms.vocabulary({ principals: true }),
    notifyTargets: () => notifier.kinds(),
  });
  closers.push(() => rules.close());

  // Events (jobs, deliveries, catch-ups) persist in the data dir.
  const events = await openEventStore(config.dataDir, logger);
  closers.push(() => events.close());

  // The write journal: every write recorded (and synced) before it is sent; what a kill cut short is reconciled
  // at start (docs/jobs-and-webhook.md#the-write-journal). The records of every real event that can be undone
  // (jobs, deliveries, catch-ups) are kept while the event is listed: undo restores from them.
  const journal = openWriteJournal({
    file: path.join(config.dataDir, 'write-journal.jsonl'),
    logger,
    keepEvent: (id) => {
      const event = events.get(id);
      return event !== undefined && event.kind !== 'revert' && !event.dry_run;
    },
  });
  closers.push(() => journal.close());
  const dmsKey = () => dmsConnection.key();

  // The echo ledger: what the service last left each document as, kept across restarts.
  const echoes = openEchoLedger({
    file: path.join(config.dataDir, 'echo-ledger.json'),
    dms: dmsConnection.dms,
    logger,
    loopMaxWrites: config.loopMaxWrites,
    loopWindowMs: config.loopWindowMinutes * 60_000,
    addedInJournal: (doc) => journal.addedHandled(dmsKey(), doc.id, doc.added),
  });
  closers.push(() => echoes.close());

  // At most one run of a document in flight, whichever path brought it (docs/jobs-and-webhook.md#how-documents-arrive-and-the-guarantees).
  const lane = createDocumentLane();
  const retry = failedRunRetry(config.timings?.failedRunRetryMs);

  // Notes and notifications are recorded before they are sent and marked done after (docs/jobs-and-webhook.md#side-effects-notes-and-notifications).
  const intents = openIntentStore({ file: path.join(config.dataDir, 'side-effects.json'), logger });
  closers.push(() => intents.close());
  const sideEffects = createSideEffects({
    store: intents,
    notifier,
    dms: dmsConnection.dms,
    logger,
    retryDelaysMs: config.notifyRetrySeconds.map((s) => s * 1000),
    journal: { journal, dmsKey },
    origin: changeOrigin(echoes, journal, dmsKey),
    hold: (document, work) => lane.exclusiveApart(document, work),
  });
  closers.push(() => sideEffects.stop());

  // create_missing: at most so many new names per run, per job or catch-up, and per hour of webhook runs (docs/security.md).
  const creations = createCreationLimiter({
    perRun: config.createMissingMaxPerRun,
    perJob: config.createMissingMaxPerJob,
  });
  // The one run pipeline (manual runs, webhook, catch-up, jobs and schedules); every write marks the echo ledger.
  const pipeline = createRunPipeline({
    dms: dmsConnection.dms,
    evaluator,
    history,
    echoes,
    logger,
    now: () => new Date(),
    notifier,
    creations,
    sideEffects,
    journal,
    dmsKey,
  });

  // What a kill cut short is reconciled, holding each document's lane, before any arrival, manual run or job runs
  // a document.
  const arrivalJournal = createArrivalJournal({
    journal,
    dms: dmsConnection.dms,
    dmsKey,
    history,
    ruleFile: (rule) => rules.loadedRules().find((r) => r.id === rule)?.file ?? '',
    states: echoes,
    logger,
    lane,
  });
  const runs = createRunService({
    dms: dmsConnection.dms,
    rules,
    pipeline,
    loop: echoes,
    lane,
    recovery: arrivalJournal,
  });
  // What a kill or a target that was down left unsent goes out once the cut-short runs are reconciled: a note the
  // retrier adds then meets the document as the journal says the service left it.
  void arrivalJournal.ready.then(() => sideEffects.resume());
  // Background jobs and the dms webhook. At shutdown the webhook queue stops taking work and a running job ends
  // as `interrupted` (closers run in reverse, before the events and the history close).
  const jobs = createJobService({
    dms: dmsConnection.dms,
    events,
    pipeline,
    echoes,
    journal,
    dmsKey,
    recovery: arrivalJournal,
    lane,
    traces: history,
    getRule: (id) => rules.getRule(id),
    logger,
  });
  closers.push(() => jobs.stop());
  const suggestions = createSuggestionService({
    dms: dmsConnection.dms,
    events,
    ruleIdTaken: (id) => rules.getRule(id) !== undefined,
    now: () => new Date(),
    logger,
  });
  closers.push(() => suggestions.stop());
  const runnerOver = (through: typeof pipeline) =>
    createAutomaticRunner(through, rules, (id) => dmsConnection.dms.getDocument(id));
  // Deliveries waiting together are run as a batch, their identical writes grouped as a job groups a page's.
  const batches = createDeliveryWrites({
    dms: dmsConnection.dms,
    pipeline,
    echoes,
    journal,
    dmsKey,
    logger,
    concurrency: 4,
  });
  // Paperless's audit log says who changed a document the service wrote; without it, the state alone decides.
  let attributionNow = createAttribution(dmsConnection.dms, logger, { runs: journal, dmsKey });
  const attribution: Attribution = {
    onlyOwnChanges: (doc, write) => attributionNow.onlyOwnChanges(doc, write),
    editedAfterAdded: (doc) => attributionNow.editedAfterAdded?.(doc) ?? Promise.resolve(null),
    status: () => attributionNow.status(),
  };
  // The front door every automatic arrival (webhook delivery, catch-up, polling) runs through: one policy for
  // echoes, handled states, retries and giving up (docs/jobs-and-webhook.md#how-documents-arrive-and-the-guarantees).
  const frontDoor = {
    lane,
    barrier: echoes,
    states: echoes,
    failures: echoes,
    attribution,
    retry,
    journal: arrivalJournal,
  };
  const arrive = createFrontDoor({ ...frontDoor, runner: runnerOver(pipeline) });
  // A delivery's plan waits for the others of its batch and is written with theirs.
  const arriveInBatch = createFrontDoor({ ...frontDoor, runner: runnerOver(batches.pipeline) });
  // The webhook is created first so catch-up can leave a document to a delivery already waiting for it.
  const webhook = createWebhookService(
    {
      dms: dmsConnection.dms,
      events,
      lane,
      arrive: arriveInBatch,
      logger,
      dryRun: () => config.webhookDryRun,
      batches,
      heard: () => catchUp.heard(),
      traces: history,
    },
    {
      ...DEFAULT_WEBHOOK_OPTIONS,
      // As many deliveries at once as the dms has web workers (a burst keeps its workers busy, no more).
      concurrency: () => Math.max(MIN_DELIVERIES_AT_ONCE, config.dmsWorkers),
      ...config.timings?.webhook,
    },
  );
  // Catch-up and polling: documents changed while the service was not listening; one cursor per dms.
  const cursors = openDmsCursors(config.dataDir, dmsConnection.key(), logger);
  const catchUp = catchUpPerDms(() =>
    createCatchUpService({
      dms: dmsConnection.dms,
      events,
      lane,
      arrive,
      queued: (document) => webhook.queue.has(document),
      cursor: cursors.forDms(dmsConnection.key()),
      logger,
      dryRun: () => config.webhookDryRun,
      startFrom: config.catchUpFrom,
      pollMinutes: () => pollMinutesOf(config),
      dmsReachable: async () => (await dmsConnection.status()).reachable,
      retryBaseMs: config.timings?.catchUpRetryMs,
      journal: arrivalJournal,
    }),
  );
  closers.push(() => webhook.stop());
  closers.push(() => catchUp.stop());
  await catchUp.start();

  // Rules with `schedule:` run as background jobs; the last run of each is kept in the data dir for catch-up.
  const schedules = createScheduleService({
    rules: () => scheduledRules(rules.loadedRules()),
    startJob: (ruleId, dryRun) => jobs.startRuleJob({ ruleId, dryRun }).event_id,
    jobActive: (eventId) => isActiveEvent(events, eventId),
    stateFile: path.join(config.dataDir, 'schedules.json'),
    logger,
  });
  await schedules.start();
  const stopReloadListener = rules.onReload(() => void schedules.tick());
  closers.push(async () => {
    stopReloadListener();
    await schedules.stop();
  });

  // The first run after start (a webhook, a job) does not wait for the workers to load the engine.
  await evaluator.ready();
  return {
    config,
    logger,
    auth,
    desktopSignIn,
    settings,
    history,
    runs,
    jobs,
    suggestions,
    webhook,
    schedules,
    catchUp,
    rules,
    dms: dmsConnection.dms,
    dmsInfo: dmsConnection.info,
    documents: createDocumentService({
      dms: dmsConnection.dms,
      // Read at each use: the settings page may switch the dms while the service runs.
      get dmsUrl() {
        return dmsConnection.info.url;
      },
      rules: () => rules.loadedRules(),
    }),
    serviceLog: serviceLog(config.dataDir),
    arrival: createArrivalReport({ catchUp, webhook, failures: echoes, attribution }),
    dmsHealth: createDmsHealthReport(dmsConnection),
    demoNames: createDemoNames({ dms: dmsConnection.dms, dmsInfo: dmsConnection.info }),
    dmsTest: createDmsConnectionTester(() => ({
      current: dmsConnection.dms,
      currentUrl: config.dmsUrl,
      currentToken: config.dmsToken,
    })),
    firstStart: createFirstStart({ auth, settings, dataDir: config.dataDir }),
    startedAt: Date.now(),
    async close() {
      for (const close of closers.reverse()) await close();
    },
  };
}
