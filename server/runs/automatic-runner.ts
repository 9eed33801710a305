import type { DmsDocument } from '../dms/types.js';
import type { LoadedRule } from '../rules/index.js';
import type { RunPipeline } from './pipeline/run-pipeline.js';
import type { WebhookTrigger } from './webhook/parse-payload.js';
import { errorMessage } from '../error-message.js';

/** What one automatic run (a webhook delivery or a catch-up) reports back for its event record. */
export interface AutomaticRunCounts {
  matched: number;
  changed: number;
  errors: number;
  /**
   * Null when the plan was applied in full (or the run was dry). Otherwise the dms's refusal: the document
   * is not handled, and is tried again later (docs/jobs-and-webhook.md: a document is handled only when its plan was applied).
   */
  failure: string | null;
}

export interface AutomaticRunner {
  run(
    document: DmsDocument,
    trigger: WebhookTrigger,
    ctx: { eventId: number; dryRun: boolean; source: 'webhook' | 'catchup' },
  ): Promise<AutomaticRunCounts>;
  /** The document never arrived (or the dms failed): every rule the arrival would have run says so in a trace. */
  fail(
    document: number,
    trigger: WebhookTrigger,
    ctx: { eventId: number; dryRun: boolean; source: 'webhook' | 'catchup' },
    message: string,
  ): void;
}

/** The rules an arrival runs: those whose `on` has the event (both kinds when the event is unknown). */
function arrivalRules(
  rules: { loadedRules(): LoadedRule[] },
  trigger: WebhookTrigger,
): { selected: LoadedRule[]; engineTrigger: 'added' | 'updated' | 'job' } {
  const all = rules.loadedRules();
  if (trigger !== 'unknown') return { selected: all, engineTrigger: trigger };
  // 'job' makes the engine ignore `on` for the rules that react to either kind.
  return {
    selected: all.filter((r) => r.compiled.on.some((t) => t === 'added' || t === 'updated')),
    engineTrigger: 'job',
  };
}

/** Webhook deliveries and catch-up documents enter the one run pipeline here (their callers hold the lane). */
export function createAutomaticRunner(pipeline: RunPipeline, rules: { loadedRules(): LoadedRule[] }): AutomaticRunner {
  return {
    async run(document, trigger, ctx) {
      const { selected, engineTrigger } = arrivalRules(rules, trigger);
      const result = await pipeline.run(document, selected, {
        trigger: engineTrigger,
        source: ctx.source,
        eventId: ctx.eventId,
        dryRun: ctx.dryRun,
      });
      return {
        matched: result.matched,
        changed: result.changed ? 1 : 0,
        errors: result.errors,
        failure: result.dmsError
          ? `The dms failed while writing document ${document.id}: ${errorMessage(result.dmsError)}`
          : null,
      };
    },
    fail(document, trigger, ctx, message) {
      const { selected, engineTrigger } = arrivalRules(rules, trigger);
      pipeline.fail(
        document,
        selected,
        { trigger: engineTrigger, source: ctx.source, eventId: ctx.eventId, dryRun: ctx.dryRun },
        message,
      );
    },
  };
}
