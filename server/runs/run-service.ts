import { DmsNotFoundError } from '../dms/errors.js';
import type { DmsClient, DmsDocument } from '../dms/types.js';
import type { RunTrigger, Trace, TraceSource } from '../engine/index.js';
import { NotFoundError, UpstreamError, errorMessage } from '../errors.js';
import type { TraceStore } from '../history/trace-store.js';
import type { Logger } from '../log.js';
import type { Evaluator } from '../eval/eval-pool.js';
import type { LoadedRule } from '../rules/index.js';
import { applyPlan } from './apply-plan.js';
import type { CreationLimiter } from './creation-guard.js';
import { evaluateAndPlan, documentContext } from './evaluate-document.js';
import { createDocumentQueries } from './queries/document-queries.js';
import type { Notifier } from './notify/notifier.js';
import { settleNotifications } from './notify/settle-notifications.js';
import type { SideEffects } from './intents/side-effects.js';
import { splitByPermission } from './rule-permissions.js';
import type { EchoLedger } from './echo-ledger.js';
import type { DocumentLane } from './lane/document-lane.js';
import { errorTrace, toTrace, withFieldOutcome, type FieldOutcome, type TraceContext } from './trace-outcome.js';

export interface RunServiceDeps {
  dms: DmsClient;
  rules: {
    loadedRules(): LoadedRule[];
    getRule(id: string): LoadedRule | undefined;
    rulesForTry(fileId: string, content: string): Promise<LoadedRule[]>;
  };
  history: Pick<TraceStore, 'append'>;
  recentWrites: Pick<EchoLedger, 'mark' | 'settle' | 'refused' | 'holdReason' | 'release'>;
  /** A manual real run holds the document's lane like every other path that writes it. */
  lane: DocumentLane;
  evaluator: Evaluator;
  logger: Logger;
  now?: () => Date;
  /** Sends `notify` actions; without it a real run's notify fails in its trace. */
  notifier?: Notifier;
  /** Caps `create_missing` creations; without it they are not capped. */
  creations?: CreationLimiter;
  /** Notes and notifications as durable intents, sent once per change (runs/intents). */
  sideEffects?: SideEffects;
}

export interface DocumentRunOptions {
  rules: LoadedRule[];
  trigger: RunTrigger;
  source: TraceSource;
  eventId: number | null;
  dryRun: boolean;
}

export interface DocumentRunResult {
  traces: Trace[];
  /** The dms error that stopped a write, if any (the traces say which actions failed). */
  dmsError: Error | null;
  matched: number;
  /** True when the run changed (or, dry, would change) the document. */
  changed: boolean;
  errors: number;
}

export interface RunService {
  /** `POST /api/run` with a document: every loaded rule (or `ruleId`) against it; traces, or 404/502. */
  runManual(input: { document: number; ruleId: string | null; dryRun: boolean }): Promise<Trace[]>;
  /**
   * A dry run of rule-file text that is not published (the editor's text): the loaded rules with that
   * file's replaced by the text's, or only `ruleId`, against one document. Nothing is written.
   */
  runText(input: {
    fileId: string;
    content: string;
    document: number;
    ruleId: string | null;
  }): Promise<{ traces: Trace[]; title: string }>;
  /** The one pipeline for a fetched document: evaluate, plan, write (real mode), record one trace per rule. */
  runDocument(doc: DmsDocument, options: DocumentRunOptions): Promise<DocumentRunResult>;
  /** One error trace per rule for a document that could not even be fetched, so the failure is in the history. */
  recordFailure(document: number, options: Omit<DocumentRunOptions, 'trigger'>, message: string): void;
  /** The echo guard every write marks (the webhook reads it). */
  readonly recentWrites: RunServiceDeps['recentWrites'];
}

/** Traces sorted as the rules were given (blocked rules' traces were made apart from the evaluation). */
function inRuleOrder(rules: LoadedRule[], traces: Trace[]): Trace[] {
  const position = new Map(rules.map((rule, i) => [rule.id, i]));
  return [...traces].sort((a, b) => (position.get(a.rule_id) ?? 0) - (position.get(b.rule_id) ?? 0));
}

export function createRunService(deps: RunServiceDeps): RunService {
  const now = deps.now ?? (() => new Date());
  const { dms, history, logger } = deps;

  async function runDocument(doc: DmsDocument, options: DocumentRunOptions): Promise<DocumentRunResult> {
    const startedAt = now().getTime();
    const ctx: TraceContext = {
      source: options.source,
      eventId: options.eventId,
      document: doc.id,
      dryRun: options.dryRun,
      startedAt,
      now,
    };
    let traces: Trace[];
    let dmsError: Error | null = null;
    let changed = false;
    try {
      const context = await documentContext(dms, doc, options.rules);
      const { runnable, blocked } = splitByPermission(options.rules, context.index.vocabulary.forbidden);
      const { evaluation, plan } = await evaluateAndPlan(
        deps.evaluator,
        doc,
        context,
        runnable,
        options.trigger,
        new Date(startedAt),
        createDocumentQueries(dms),
      );
      const outcome: FieldOutcome = {
        dryRun: options.dryRun,
        changed: plan.changed,
        written: [],
        failures: plan.failures,
      };
      const effects = options.dryRun
        ? undefined
        : deps.sideEffects?.forRun(doc, options.trigger, evaluation.results, evaluation.notifications);
      // Loop breaker: only automatic runs (webhook, catch-up) are held; a person's manual run or job is not.
      const held =
        options.source === 'webhook' || options.source === 'catchup' ? deps.recentWrites.holdReason(doc.id) : null;
      if (held && !options.dryRun && plan.changed.length > 0) {
        outcome.failures = Object.fromEntries(plan.changed.map((field) => [field, held]));
        logger.warn(held);
      } else if (!options.dryRun) {
        const applied = await applyPlan(dms, plan, deps.recentWrites, {
          creations: deps.creations?.forRun(options.source, options.eventId),
          sideEffects: effects,
        });
        outcome.written = applied.written;
        outcome.failures = applied.failures;
        outcome.superseded = applied.superseded;
        dmsError = applied.dmsError;
      }
      changed = options.dryRun ? plan.changed.some((f) => !plan.failures[f]) : outcome.written.length > 0;
      traces = evaluation.results.map((result) => withFieldOutcome(toTrace(result, ctx), outcome));
      traces = await settleNotifications(traces, evaluation.notifications, {
        trigger: options.trigger,
        dryRun: options.dryRun,
        notifier: deps.notifier,
        effects,
      });
      if (blocked.length > 0)
        traces = inRuleOrder(options.rules, [
          ...traces,
          ...blocked.map(({ rule, message }) => errorTrace(rule, message, ctx)),
        ]);
    } catch (err) {
      // Still one trace per rule: a run that fails before evaluation says why in each of them.
      if (err instanceof UpstreamError) dmsError = err;
      else
        logger.error(
          `run of document ${doc.id} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
        );
      const message =
        err instanceof UpstreamError ? `The dms failed: ${errorMessage(err)}` : `The run failed: ${errorMessage(err)}`;
      traces = options.rules.map((rule) => errorTrace(rule, message, ctx));
    }
    history.append(traces);
    return {
      traces,
      dmsError,
      matched: traces.filter((t) => t.status === 'matched' || (t.status === 'error' && t.actions.length > 0)).length,
      changed,
      errors: traces.filter((t) => t.status === 'error').length,
    };
  }

  function recordFailure(document: number, options: Omit<DocumentRunOptions, 'trigger'>, message: string): void {
    const ctx: TraceContext = {
      source: options.source,
      eventId: options.eventId,
      document,
      dryRun: options.dryRun,
      startedAt: now().getTime(),
      now,
    };
    history.append(options.rules.map((rule) => errorTrace(rule, message, ctx)));
  }

  async function runManual(input: { document: number; ruleId: string | null; dryRun: boolean }): Promise<Trace[]> {
    let rules: LoadedRule[];
    if (input.ruleId !== null) {
      const rule = deps.rules.getRule(input.ruleId);
      if (!rule)
        throw new NotFoundError(
          `No loaded rule has the id "${input.ruleId}"; check GET /api/ui/rules for the loaded ids and any file errors.`,
        );
      rules = [rule];
    } else rules = deps.rules.loadedRules();
    const run = () => runOn(input.document, rules, input.ruleId !== null, input.dryRun);
    return (await (input.dryRun ? run() : deps.lane.exclusive(input.document, run))).traces;
  }

  async function runText(input: {
    fileId: string;
    content: string;
    document: number;
    ruleId: string | null;
  }): Promise<{ traces: Trace[]; title: string }> {
    let rules = await deps.rules.rulesForTry(input.fileId, input.content);
    if (input.ruleId !== null) {
      rules = rules.filter((r) => r.id === input.ruleId);
      if (rules.length === 0)
        throw new NotFoundError(`Neither the edited text nor the other loaded files have a rule "${input.ruleId}".`);
    }
    return runOn(input.document, rules, input.ruleId !== null, true);
  }

  async function runOn(
    document: number,
    rules: LoadedRule[],
    oneRule: boolean,
    dryRun: boolean,
  ): Promise<{ traces: Trace[]; title: string }> {
    // A rule asked for by id runs whatever its `on` says (like a job); "all rules" honours `on: manual`.
    const trigger: RunTrigger = oneRule ? 'job' : 'manual';
    const options: DocumentRunOptions = { rules, trigger, source: 'manual', eventId: null, dryRun };
    // A person asked for this document: the loop breaker lets the service write it again.
    if (!dryRun) deps.recentWrites.release(document);

    let doc: DmsDocument;
    try {
      doc = await dms.getDocument(document);
    } catch (err) {
      const missing = err instanceof DmsNotFoundError;
      const message = missing
        ? `Document ${document} was not found in the dms (${dms.url}).`
        : `The dms failed: ${errorMessage(err)}`;
      recordFailure(document, options, message);
      if (missing) throw new NotFoundError(message);
      if (err instanceof UpstreamError) throw err;
      throw new UpstreamError(message);
    }

    const result = await runDocument(doc, options);
    if (result.dmsError) {
      throw new UpstreamError(
        `The dms failed during the run of document ${document}: ${errorMessage(result.dmsError)} (the traces in GET /api/traces?document=${document} show what was written)`,
      );
    }
    return { traces: result.traces, title: doc.title };
  }

  return { runManual, runText, runDocument, recordFailure, recentWrites: deps.recentWrites };
}
