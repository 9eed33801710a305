import type { Worker } from 'node:worker_threads';
import type { CustomFieldDataType } from '../dms/types.js';
import { evaluateRules, type RuleResult, type RunTrigger, type RuleDocument } from '../engine/engine.js';
import { answersSource, type QueryAnswer } from '../engine/document-queries.js';
import type { Logger } from '../log.js';
import type { LoadedRule } from '../rules/rules.js';
import { tagHierarchyOfTags, type NamedTagNode } from './named-tag-tree.js';
import { startWorker } from './worker-start.js';
import {
  PROGRESS,
  type DocumentEvaluation,
  type EvalAnswer,
  type EvalBatch,
  type EvalItem,
  type EvalMessage,
} from './eval-protocol.js';
import { perObject } from '../per-object.js';

export interface EvaluateRequest {
  document: RuleDocument;
  rules: LoadedRule[];
  trigger: RunTrigger;
  now: Date;
  customFieldTypes: Record<string, CustomFieldDataType>;
  /** The dms's tags, so tag actions end as Paperless stores them (ancestors added, descendants removed). */
  tags: readonly NamedTagNode[];
  /** Answers to queries over other documents asked in earlier rounds for this document, by question key. */
  queryAnswers?: Record<string, QueryAnswer>;
}

/** Evaluates documents against rules; with workers, off the main thread and within a time budget per rule. */
export interface Evaluator {
  evaluate(request: EvaluateRequest): Promise<DocumentEvaluation>;
  /** Worker threads in use (0: evaluation runs on the main thread). */
  readonly workers: number;
  /** Resolves once evaluation can start without waiting: every worker loaded the engine (or they cannot run here). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export interface EvalPoolOptions {
  workers: number;
  budgetMs: number;
  logger: Logger;
  /** Most documents in one message to a worker. */
  maxBatch?: number;
}

/** The same engine call on the main thread: no budget (used with SVC_EVAL_WORKERS=0 or when workers cannot start). */
export function inlineEvaluator(): Evaluator {
  return {
    workers: 0,
    evaluate(request) {
      // The executor runs at once; an engine throw becomes the rejection.
      return new Promise((resolve) => {
        const { document: _final, ...evaluation } = evaluateRules({
          ...request,
          rules: request.rules.map((r) => ({ compiled: r.compiled, file: r.file, vars: r.vars })),
          tagHierarchy: tagHierarchyOfTags(request.tags),
          queries: answersSource(request.queryAnswers ?? {}),
        });
        resolve(evaluation);
      });
    },
    ready: () => Promise.resolve(),
    async close() {},
  };
}

interface Pending {
  request: EvaluateRequest;
  /** Rules (by index in `request.rules`) that ran out of time and are left out of later attempts. */
  timedOut: Map<number, string>;
  resolve(evaluation: DocumentEvaluation): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  online: boolean;
  progress: Float64Array;
  /** The batch in flight and, per item, which rule indexes of its request were sent. */
  batch: Array<{ pending: Pending; sent: number[] }>;
  answered: number;
}

// What items share goes to the worker once per batch, keyed by object identity: a LoadedRule is replaced on
// reload and the vocabulary's tags and field types are one object per snapshot, so a key never goes stale.
let nextKey = 1;
const keyOf = perObject((_shared: object): string => `#${nextKey++}`);

/**
 * One message for a batch: each rule, field-type map and tag list once, the items refer to them by key; the
 * documents' text beside the JSON (eval-protocol.ts).
 */
function batchMessage(batch: Array<{ pending: Pending; sent: number[] }>): EvalMessage {
  const message: EvalBatch = { items: [], rules: {}, fieldTypes: {}, tagTrees: {} };
  const contents: string[] = [];
  for (const { pending, sent } of batch) {
    const { document, rules, trigger, now, customFieldTypes, tags } = pending.request;
    contents.push(document.content);
    const item: EvalItem = {
      // The key stays in its place (the worker puts the text back), so the document's fields keep their order.
      document: { ...document, content: '' },
      rules: [],
      trigger,
      now: now.getTime(),
      fieldTypes: keyOf(customFieldTypes),
      tagTree: keyOf(tags),
      queryAnswers: pending.request.queryAnswers,
    };
    for (const i of sent) {
      const rule = rules[i];
      const key = keyOf(rule);
      message.rules[key] ??= { definition: rule.compiled.definition, file: rule.file, vars: rule.vars };
      item.rules.push(key);
    }
    message.fieldTypes[item.fieldTypes] ??= customFieldTypes;
    message.tagTrees[item.tagTree] ??= tags.map(({ id, name, parent }) => ({ id, name, parent }));
    message.items.push(item);
  }
  return { batch: JSON.stringify(message), contents };
}

function timeoutResult(rule: LoadedRule, message: string): RuleResult {
  return {
    rule_id: rule.id,
    file: rule.file,
    status: 'timeout',
    conditions: [],
    extracted: {},
    changes: {},
    actions: [],
    error: message,
  };
}

/**
 * A pool of worker threads running the engine. A rule that runs longer than the budget on one document has
 * its worker stopped (RE2 cannot be interrupted otherwise); the document is evaluated again without it, and
 * its trace says it timed out, like a rule that failed. The other documents of the batch go on elsewhere.
 */
export function createEvalPool(options: EvalPoolOptions): Evaluator {
  const maxBatch = options.maxBatch ?? 250;
  const queue: Pending[] = [];
  const slots: Slot[] = [];
  let closed = false;
  let dispatchScheduled = false;
  let inline: Evaluator | null = null;
  let watchdog: NodeJS.Timeout | undefined;
  let markReady = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const checkReady = () => {
    if (slots.every((slot) => slot.online)) markReady();
  };

  const spawn = (): Slot => {
    const shared = new SharedArrayBuffer(PROGRESS.size * Float64Array.BYTES_PER_ELEMENT);
    const worker = startWorker('eval-worker', { progress: shared });
    const slot: Slot = { worker, online: false, progress: new Float64Array(shared), batch: [], answered: 0 };
    // An idle worker must not keep the process alive; a busy one is referenced while it works.
    worker.unref();
    // Ready only once the worker's module loaded: an error before that means workers cannot run here at all.
    worker.on('message', (answers: EvalAnswer[] | 'ready') => {
      if (answers !== 'ready') return onAnswers(slot, answers);
      slot.online = true;
      checkReady();
    });
    worker.on('error', (err) =>
      slot.online ? replace(slot, `evaluation failed: ${err.message}`) : giveUp(slot, err.message),
    );
    worker.on('exit', (code) => {
      if (!closed && slots.includes(slot)) replace(slot, `the evaluation worker stopped (exit code ${code})`);
    });
    return slot;
  };

  /** Workers cannot start here at all (e.g. a packaging that cannot load the worker file): evaluate inline. */
  const giveUp = (slot: Slot, reason: string) => {
    if (inline) return;
    inline = inlineEvaluator();
    markReady();
    options.logger.error(
      `evaluation worker threads could not start (${reason}); rules are evaluated on the main thread without a time budget`,
    );
    const waiting = [...slots.flatMap((s) => s.batch.slice(s.answered).map((b) => b.pending)), ...queue.splice(0)];
    slots.splice(0);
    void slot.worker.terminate();
    for (const pending of waiting) void runInline(pending);
  };

  const runInline = async (pending: Pending) => {
    try {
      pending.resolve(await (inline as Evaluator).evaluate(pending.request));
    } catch (err) {
      pending.reject(err as Error);
    }
  };

  /** A worker died or was stopped: it is replaced, and its unanswered items fail (or are retried by the caller). */
  const replace = (slot: Slot, failure: string | null) => {
    const index = slots.indexOf(slot);
    if (index < 0) return;
    const left = slot.batch.slice(slot.answered);
    slot.batch = [];
    void slot.worker.terminate();
    if (closed) return;
    slots[index] = spawn();
    if (failure !== null) for (const { pending } of left) pending.reject(new Error(failure));
    dispatch();
  };

  const merged = (pending: Pending, sent: number[], evaluation: DocumentEvaluation): DocumentEvaluation => {
    if (pending.timedOut.size === 0 || evaluation.pendingQuery) return evaluation;
    const results: RuleResult[] = [];
    pending.request.rules.forEach((rule, i) => {
      const timedOut = pending.timedOut.get(i);
      results.push(timedOut !== undefined ? timeoutResult(rule, timedOut) : evaluation.results[sent.indexOf(i)]);
    });
    return { ...evaluation, results };
  };

  const onAnswers = (slot: Slot, answers: EvalAnswer[]) => {
    for (const answer of answers) {
      const item = slot.batch[answer.index];
      if (!item || answer.index !== slot.answered) return;
      slot.answered++;
      if ('error' in answer) item.pending.reject(new Error(answer.error));
      else item.pending.resolve(merged(item.pending, item.sent, answer.evaluation));
    }
    if (slot.batch.length > 0 && slot.answered === slot.batch.length) {
      slot.batch = [];
      slot.worker.unref();
      dispatch();
    }
  };

  const checkBudgets = () => {
    const now = Date.now();
    for (const slot of [...slots]) {
      const startedAt = slot.progress[PROGRESS.startedAt];
      if (slot.batch.length === 0 || startedAt === 0 || now - startedAt <= options.budgetMs) continue;
      const at = slot.batch[slot.progress[PROGRESS.item]];
      if (!at || slot.progress[PROGRESS.item] < slot.answered) continue;
      const ruleIndex = at.sent[slot.progress[PROGRESS.rule]];
      const rule = at.pending.request.rules[ruleIndex];
      at.pending.timedOut.set(
        ruleIndex,
        `${rule.id} took longer than ${options.budgetMs} ms on this document (the evaluation time budget, SVC_EVAL_BUDGET_MS) and was stopped; the other rules ran without it`,
      );
      options.logger.error(
        `rule ${rule.id} exceeded the evaluation budget of ${options.budgetMs} ms on document ${at.pending.request.document.id}; stopped`,
      );
      // The unanswered items (some may be done but not yet reported) go back to the front of the queue.
      queue.unshift(...slot.batch.slice(slot.answered).map((b) => b.pending));
      slot.batch = [];
      replace(slot, null);
    }
    if (!slots.some((s) => s.batch.length > 0) && watchdog) {
      clearInterval(watchdog);
      watchdog = undefined;
    }
  };

  /** Splits the queue evenly over the idle workers; called once per turn so a whole page is queued first. */
  const dispatch = () => {
    dispatchScheduled = false;
    const idle = slots.filter((slot) => slot.batch.length === 0);
    for (const [n, slot] of idle.entries()) {
      if (queue.length === 0) return;
      const take = Math.min(maxBatch, Math.ceil(queue.length / (idle.length - n)));
      const batch = queue.splice(0, take).map((pending) => {
        const sent = pending.request.rules.map((_, i) => i).filter((i) => !pending.timedOut.has(i));
        return { pending, sent };
      });
      slot.batch = batch;
      slot.answered = 0;
      slot.progress[PROGRESS.startedAt] = 0;
      slot.worker.ref();
      // Few, large messages: each hand-over to a worker costs far more than the size of its payload.
      slot.worker.postMessage(batchMessage(batch));
      watchdog ??= setInterval(checkBudgets, Math.max(10, Math.min(250, options.budgetMs / 4)));
      watchdog.unref();
    }
  };

  const scheduleDispatch = () => {
    if (dispatchScheduled) return;
    dispatchScheduled = true;
    setImmediate(dispatch);
  };

  for (let i = 0; i < options.workers; i++) slots.push(spawn());

  return {
    get workers() {
      return inline ? 0 : slots.length;
    },
    ready: () => ready,
    evaluate(request) {
      if (closed) return Promise.reject(new Error('the evaluation pool is closed'));
      if (inline) return inline.evaluate(request);
      return new Promise<DocumentEvaluation>((resolve, reject) => {
        queue.push({ request, timedOut: new Map(), resolve, reject });
        scheduleDispatch();
      });
    },
    async close() {
      closed = true;
      if (watchdog) clearInterval(watchdog);
      for (const pending of queue.splice(0)) pending.reject(new Error('the evaluation pool is closed'));
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}
