import type { Worker } from 'node:worker_threads';
import { runRuleTests, type CompiledRule, type RuleTestOptions, type RuleTestOutcome } from '../engine/engine.js';
import type { Logger } from '../log.js';
import type { RuleTestRunner } from '../rules/rules.js';
import { TEST_PROGRESS, type RuleTestAnswer, type RuleTestJob } from './rule-test-protocol.js';
import { startWorker } from './worker-start.js';

export interface RuleTestPool {
  run: RuleTestRunner;
  close(): Promise<void>;
}

export interface RuleTestPoolOptions {
  /** Per test, like a rule's budget per document (SVC_EVAL_BUDGET_MS). */
  budgetMs: number;
  logger: Logger;
}

/** On the calling thread, without a budget: where worker threads cannot start. */
const testsInline: RuleTestRunner = (compiled, options) =>
  Promise.resolve().then(() => runRuleTests(compiled, options));

interface Job {
  compiled: CompiledRule;
  options: RuleTestOptions;
  wire: RuleTestJob;
  count: number;
  outcomes: RuleTestOutcome[];
  resolve: (outcomes: RuleTestOutcome[]) => void;
  reject: (err: Error) => void;
}

interface Thread {
  worker: Worker;
  online: boolean;
  progress: Float64Array;
}

/**
 * Rules' `tests:` (at load, on save, in the editor) off the main thread, in a worker thread of their own so
 * they never wait behind a job's documents. Each test has the evaluation budget: a test that overruns it
 * has its worker stopped (RE2 cannot be interrupted otherwise) and fails with a message saying so; the
 * tests after it go on in a fresh worker. If worker threads cannot start here, tests run on the main thread.
 */
export function createRuleTestPool(options: RuleTestPoolOptions): RuleTestPool {
  const queue: Job[] = [];
  let thread: Thread | null = null;
  let current: Job | null = null;
  let watchdog: NodeJS.Timeout | undefined;
  let inline = false;
  let closed = false;

  const spawn = (): Thread => {
    const shared = new SharedArrayBuffer(TEST_PROGRESS.size * Float64Array.BYTES_PER_ELEMENT);
    const started: Thread = {
      worker: startWorker('rule-test-worker', { progress: shared }),
      online: false,
      progress: new Float64Array(shared),
    };
    started.worker.unref();
    started.worker.on('message', (answer: RuleTestAnswer | 'ready') => {
      if (answer === 'ready') started.online = true;
      else if (thread === started) onAnswer(answer);
    });
    started.worker.on('error', (err) => {
      if (thread !== started) return;
      if (!started.online) giveUp(err.message);
      else fail(`the rule tests stopped: ${err.message}`);
    });
    started.worker.on('exit', (code) => {
      if (thread === started && !closed) fail(`the rule-test worker stopped (exit code ${code})`);
    });
    return started;
  };

  const stopThread = () => {
    if (thread) void thread.worker.terminate();
    thread = null;
  };

  /** Workers cannot start here at all: the tests run on the main thread from now on, without a budget. */
  const giveUp = (reason: string) => {
    inline = true;
    stopThread();
    options.logger.error(
      `the rule-test worker thread could not start (${reason}); rules' tests run on the main thread without a time budget`,
    );
    const waiting = [...(current ? [current] : []), ...queue.splice(0)];
    current = null;
    for (const job of waiting) runInline(job);
  };

  const runInline = (job: Job) => {
    testsInline(job.compiled, job.options).then(job.resolve, job.reject);
  };

  const finish = () => {
    current = null;
    thread?.worker.unref();
    if (watchdog) clearInterval(watchdog);
    watchdog = undefined;
    next();
  };

  const fail = (message: string) => {
    const job = current;
    stopThread();
    finish();
    job?.reject(new Error(message));
  };

  const onAnswer = (answer: RuleTestAnswer) => {
    const job = current;
    if (!job) return;
    if ('failed' in answer) {
      finish();
      job.reject(new Error(answer.failed));
    } else if ('done' in answer) {
      finish();
      job.resolve(job.outcomes);
    } else job.outcomes[answer.index] = answer.outcome;
  };

  const send = (job: Job) => {
    thread ??= spawn();
    thread.progress[TEST_PROGRESS.startedAt] = 0;
    thread.worker.ref();
    thread.worker.postMessage(JSON.stringify(job.wire));
    watchdog ??= setInterval(checkBudget, Math.max(10, Math.min(250, options.budgetMs / 4)));
    watchdog.unref();
  };

  const checkBudget = () => {
    const job = current;
    if (!job || !thread) return;
    const startedAt = thread.progress[TEST_PROGRESS.startedAt];
    if (startedAt === 0 || Date.now() - startedAt <= options.budgetMs) return;
    const index = thread.progress[TEST_PROGRESS.test];
    const test = job.wire.definition.tests?.[index];
    const name = test?.name ?? `test ${index + 1}`;
    job.outcomes[index] = {
      name,
      ok: false,
      message: `${name}: took longer than ${options.budgetMs} ms (the evaluation time budget, SVC_EVAL_BUDGET_MS) and was stopped; make the example document shorter or the rule's patterns cheaper`,
      path: ['tests', index],
    };
    options.logger.error(
      `a test of rule ${job.wire.definition.id} exceeded the evaluation budget of ${options.budgetMs} ms; stopped`,
    );
    // The worker cannot be interrupted: a fresh one runs the tests after the one that overran.
    stopThread();
    job.wire = { ...job.wire, from: index + 1 };
    if (job.wire.from >= job.count || job.wire.firstFailure) {
      finish();
      job.resolve(job.outcomes);
    } else send(job);
  };

  const next = () => {
    if (current || closed) return;
    const job = queue.shift();
    if (!job) return;
    current = job;
    send(job);
  };

  return {
    run(compiled, testOptions) {
      const count = compiled.definition.tests?.length ?? 0;
      if (count === 0) return Promise.resolve([]);
      if (closed) return Promise.reject(new Error('the rule-test runner is closed'));
      if (inline) return testsInline(compiled, testOptions);
      return new Promise<RuleTestOutcome[]>((resolve, reject) => {
        const wire: RuleTestJob = {
          definition: compiled.definition,
          vars: testOptions.vars ?? {},
          file: testOptions.file ?? '',
          now: testOptions.now.getTime(),
          from: 0,
          firstFailure: testOptions.firstFailure === true,
        };
        queue.push({ compiled, options: testOptions, wire, count, outcomes: [], resolve, reject });
        next();
      });
    },
    async close() {
      closed = true;
      if (watchdog) clearInterval(watchdog);
      for (const job of queue.splice(0)) job.reject(new Error('the rule-test runner is closed'));
      const stopping = thread?.worker.terminate();
      thread = null;
      await stopping;
    },
  };
}
