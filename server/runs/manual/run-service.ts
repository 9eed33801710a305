import { DmsError, DmsNotFoundError } from '../../dms/dms-errors.js';
import type { DmsClient, DmsDocument } from '../../dms/types.js';
import type { RunTrigger, Trace } from '../../engine/engine.js';
import { errorMessage } from '../../error-message.js';
import { NotFoundError, UpstreamError } from '../../app-errors.js';
import type { LoadedRule } from '../../rules/rules.js';
import type { LoopBreaker } from '../echo/loop-breaker.js';
import type { ArrivalJournal } from '../journal/arrival-journal.js';
import type { DocumentLane } from '../lane/document-lane.js';
import type { RunContext } from '../pipeline/plan-run.js';
import type { RunPipeline } from '../pipeline/run-pipeline.js';

export interface RunServiceDeps {
  dms: DmsClient;
  rules: {
    loadedRules(): LoadedRule[];
    getRule(id: string): LoadedRule | undefined;
    rulesForTry(fileId: string, content: string): Promise<LoadedRule[]>;
  };
  /** The one run pipeline (plan, write, record) every path calls. */
  pipeline: RunPipeline;
  /** A person's real run releases the loop breaker's hold on the document. */
  loop: Pick<LoopBreaker, 'release'>;
  /** A manual real run holds the document's lane like every other path that writes it. */
  lane: DocumentLane;
  /** …and, like an arrival, has the writes a kill cut short on the document reconciled before it reads it. */
  recovery?: Pick<ArrivalJournal, 'ready' | 'reconcile'>;
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
}

/** Manual runs: a document a person picked, fetched here, then the one pipeline (`runs/pipeline/`). */
export function createRunService(deps: RunServiceDeps): RunService {
  const { dms, pipeline } = deps;

  async function runManual(input: { document: number; ruleId: string | null; dryRun: boolean }): Promise<Trace[]> {
    let rules: LoadedRule[];
    if (input.ruleId !== null) {
      const rule = deps.rules.getRule(input.ruleId);
      if (!rule)
        throw new NotFoundError(
          `No loaded rule has the id "${input.ruleId}"; the Rules page lists the loaded rules and any file errors.`,
        );
      rules = [rule];
    } else rules = deps.rules.loadedRules();
    const run = () => runOn(input.document, rules, input.ruleId !== null, input.dryRun);
    if (input.dryRun) return (await run()).traces;
    // The start's reconciliation is waited for outside the lane: it holds lanes of its own.
    await deps.recovery?.ready;
    const held = async () => {
      await deps.recovery?.reconcile(input.document);
      return run();
    };
    return (await deps.lane.exclusive(input.document, held)).traces;
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
    const ctx: RunContext = { trigger, source: 'manual', eventId: null, dryRun };
    // A person asked for this document: the loop breaker lets the service write it again.
    if (!dryRun) deps.loop.release(document);

    let doc: DmsDocument;
    try {
      doc = await dms.getDocument(document);
    } catch (err) {
      const missing = err instanceof DmsNotFoundError;
      const message = missing
        ? `Document ${document} was not found in the dms (${dms.url}).`
        : `The dms failed: ${errorMessage(err)}`;
      pipeline.fail(document, rules, ctx, message);
      if (missing) throw new NotFoundError(message);
      if (err instanceof DmsError) throw err;
      throw new UpstreamError(message);
    }

    const result = await pipeline.run(doc, rules, ctx);
    if (result.dmsError) {
      throw new UpstreamError(
        `The dms failed during the run of document ${document}: ${errorMessage(result.dmsError)} (the document's traces on the Traces page show what was written)`,
      );
    }
    return { traces: result.traces, title: doc.title };
  }

  return { runManual, runText };
}
