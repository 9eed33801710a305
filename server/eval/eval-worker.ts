// A worker thread of the evaluation pool (eval-pool.ts): runs the pure engine on batches of documents and
// reports which item and rule it is in through shared memory, so the pool can stop it when a rule overruns.
import { parentPort, workerData } from 'node:worker_threads';
import { compileRule, evaluateRules, type CompiledRule } from '../engine/index.js';
import { errorMessage } from '../errors.js';
import { PROGRESS, type EvalAnswer, type EvalBatch, type WireRule } from './eval-protocol.js';

const progress = new Float64Array(workerData.progress as SharedArrayBuffer);
const compiled = new Map<string, CompiledRule>();

function compiledRule(rule: WireRule): CompiledRule {
  let c = compiled.get(rule.key);
  if (!c) {
    // Rules change rarely; a reload brings new keys, so forget everything when the cache grows large.
    if (compiled.size > 1000) compiled.clear();
    c = compileRule(rule.definition);
    compiled.set(rule.key, c);
  }
  return c;
}

parentPort?.on('message', (batch: EvalBatch) => {
  batch.items.forEach((item, index) => {
    progress[PROGRESS.item] = index;
    let answer: EvalAnswer;
    try {
      const { document: _final, ...evaluation } = evaluateRules({
        document: item.document,
        rules: item.rules.map((r) => ({ compiled: compiledRule(r), file: r.file, vars: r.vars })),
        trigger: item.trigger,
        now: new Date(item.now),
        customFieldTypes: item.customFieldTypes,
        onRule(rule) {
          progress[PROGRESS.rule] = rule;
          progress[PROGRESS.startedAt] = Date.now();
        },
      });
      answer = { index, evaluation };
    } catch (err) {
      answer = { index, error: errorMessage(err) };
    }
    progress[PROGRESS.startedAt] = 0;
    parentPort?.postMessage(answer);
  });
});

parentPort?.postMessage('ready');
