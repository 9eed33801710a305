// A worker thread of the evaluation pool (eval-pool.ts): runs the pure engine on batches of documents and
// reports which item and rule it is in through shared memory, so the pool can stop it when a rule overruns.
import { parentPort, workerData } from 'node:worker_threads';
import { compileRule, evaluateRules, type CompiledRule } from '../engine/engine.js';
import type { TagHierarchy } from '../engine/model.js';
import { tagHierarchyOfTags } from './named-tag-tree.js';
import { answersSource } from '../engine/document-queries.js';
import { PROGRESS, type EvalAnswer, type EvalBatch, type EvalMessage, type WireRule } from './eval-protocol.js';
import { errorMessage } from '../error-message.js';

const progress = new Float64Array((workerData as { progress: SharedArrayBuffer }).progress);
const compiled = new Map<string, CompiledRule>();

function compiledRule(key: string, rule: WireRule): CompiledRule {
  let c = compiled.get(key);
  if (!c) {
    // Rules change rarely; a reload brings new keys, so forget everything when the cache grows large.
    if (compiled.size > 1000) compiled.clear();
    c = compileRule(rule.definition);
    compiled.set(key, c);
  }
  return c;
}

const hierarchies = new Map<string, TagHierarchy>();
function hierarchyOf(batch: EvalBatch, key: string): TagHierarchy {
  let h = hierarchies.get(key);
  if (!h) {
    if (hierarchies.size > 20) hierarchies.clear();
    h = tagHierarchyOfTags(batch.tagTrees[key] ?? []);
    hierarchies.set(key, h);
  }
  return h;
}

// Answers go back in groups: at the end of the batch, or after 50 ms for a slow one. Each message costs the
// pool's thread time and wakes it (a whole page is awaited at once anyway). Items not yet reported when the
// pool stops this worker are simply evaluated again.
const GROUP_MS = 50;

parentPort?.on('message', (message: EvalMessage) => {
  const batch = JSON.parse(message.batch) as EvalBatch;
  let answers: EvalAnswer[] = [];
  let sentAt = Date.now();
  batch.items.forEach((item, index) => {
    progress[PROGRESS.item] = index;
    try {
      item.document.content = message.contents[index];
      const { document: _final, ...evaluation } = evaluateRules({
        document: item.document,
        rules: item.rules.map((key) => {
          const rule = batch.rules[key];
          return { compiled: compiledRule(key, rule), file: rule.file, vars: rule.vars };
        }),
        trigger: item.trigger,
        now: new Date(item.now),
        customFieldTypes: batch.fieldTypes[item.fieldTypes],
        tagHierarchy: hierarchyOf(batch, item.tagTree),
        queries: answersSource(item.queryAnswers ?? {}),
        onRule(rule) {
          progress[PROGRESS.rule] = rule;
          progress[PROGRESS.startedAt] = Date.now();
        },
      });
      answers.push({ index, evaluation });
    } catch (err) {
      answers.push({ index, error: errorMessage(err) });
    }
    progress[PROGRESS.startedAt] = 0;
    if (index === batch.items.length - 1 || Date.now() - sentAt > GROUP_MS) {
      parentPort?.postMessage(answers);
      answers = [];
      sentAt = Date.now();
    }
  });
});

parentPort?.postMessage('ready');
