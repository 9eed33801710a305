// A worker thread of the rule-test runner (rule-test-runner.ts): runs a rule's `tests:` one by one with the
// pure engine and reports which test it is in through shared memory, so the runner can stop it when a
// test overruns the evaluation budget.
import { parentPort, workerData } from 'node:worker_threads';
import { compileRule, runRuleTests, type RuleTestOutcome } from '../engine/engine.js';
import { TEST_PROGRESS, type RuleTestAnswer, type RuleTestJob } from './rule-test-protocol.js';
import { errorMessage } from '../error-message.js';

const progress = new Float64Array((workerData as { progress: SharedArrayBuffer }).progress);
const send = (answer: RuleTestAnswer) => parentPort?.postMessage(answer);

parentPort?.on('message', (message: string) => {
  const job = JSON.parse(message) as RuleTestJob;
  let compiled;
  try {
    compiled = compileRule(job.definition);
  } catch (err) {
    send({ failed: errorMessage(err) });
    return;
  }
  const tests = compiled.definition.tests ?? [];
  for (let index = job.from; index < tests.length; index++) {
    progress[TEST_PROGRESS.test] = index;
    progress[TEST_PROGRESS.startedAt] = Date.now();
    // One test at a time, named and placed as in the whole list, so the runner knows which one overran.
    const one = {
      ...compiled,
      definition: {
        ...compiled.definition,
        tests: [{ ...tests[index], name: tests[index].name ?? `test ${index + 1}` }],
      },
    };
    const [outcome] = runRuleTests(one, { now: new Date(job.now), vars: job.vars, file: job.file });
    progress[TEST_PROGRESS.startedAt] = 0;
    const placed: RuleTestOutcome = { ...outcome, path: ['tests', index, ...outcome.path.slice(2)] };
    send({ index, outcome: placed });
    if (job.firstFailure && !placed.ok) break;
  }
  send({ done: true });
});

parentPort?.postMessage('ready');
