import type { DmsDocument } from '../../dms/types.js';
import type { RunRecord } from '../pipeline/record-run.js';
import type { LoadedRule } from '../../rules/rules.js';
import type { RunPipeline } from '../pipeline/run-pipeline.js';
import type { WebhookTrigger } from '../webhook/parse-payload.js';
import { errorMessage } from '../../error-message.js';

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

/** One trigger, or the triggers of merged deliveries (each runs as itself). */
export type ArrivalTriggers = WebhookTrigger | readonly WebhookTrigger[];

export interface AutomaticRunner {
  run(
    document: DmsDocument,
    trigger: ArrivalTriggers,
    ctx: { eventId: number; dryRun: boolean; source: 'webhook' | 'catchup' },
  ): Promise<AutomaticRunCounts>;
  /** The document never arrived (or the dms failed): every rule the arrival would have run says so in a trace. */
  fail(
    document: number,
    trigger: ArrivalTriggers,
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

type Pass = { selected: LoadedRule[]; engineTrigger: 'added' | 'updated' | 'job' };

/**
 * The passes an arrival runs. A document both added and updated (merged deliveries) runs as if each delivery
 * ran: first the rules for `added` with that trigger, then the rules only for `updated` with theirs, so `on:`
 * and `notify when: on_change` see the trigger they expect; a rule for both runs once, as added.
 */
function arrivalPasses(rules: { loadedRules(): LoadedRule[] }, triggers: ArrivalTriggers): Pass[] {
  const set = new Set(typeof triggers === 'string' ? [triggers] : triggers);
  if (set.size !== 2 || !set.has('added') || !set.has('updated'))
    return [arrivalRules(rules, set.size === 1 ? [...set][0] : 'unknown')];
  const all = rules.loadedRules();
  const passes: Pass[] = [
    { selected: all.filter((r) => r.compiled.on.includes('added')), engineTrigger: 'added' },
    {
      selected: all.filter((r) => !r.compiled.on.includes('added') && r.compiled.on.includes('updated')),
      engineTrigger: 'updated',
    },
  ];
  return passes.filter((p) => p.selected.length > 0);
}

/**
 * Webhook deliveries and catch-up documents enter the one run pipeline here, from the front door (`arrive.ts`,
 * which holds the lane).
 * `read` fetches the document again between two passes when the first wrote it.
 */
export function createAutomaticRunner(
  pipeline: RunPipeline,
  rules: { loadedRules(): LoadedRule[] },
  read?: (id: number) => Promise<DmsDocument>,
): AutomaticRunner {
  return {
    async run(document, trigger, ctx) {
      let current = document;
      const total = { matched: 0, changed: false, errors: 0 };
      let dmsError: Error | null = null;
      const passes = arrivalPasses(rules, trigger);
      for (const [i, { selected, engineTrigger }] of passes.entries()) {
        const result: RunRecord = await pipeline.run(current, selected, {
          trigger: engineTrigger,
          source: ctx.source,
          eventId: ctx.eventId,
          dryRun: ctx.dryRun,
        });
        total.matched += result.matched;
        total.changed ||= result.changed;
        total.errors += result.errors;
        dmsError = result.dmsError;
        if (dmsError) break;
        if (i + 1 < passes.length && result.changed && !ctx.dryRun && read) current = await read(document.id);
      }
      return {
        matched: total.matched,
        changed: total.changed ? 1 : 0,
        errors: total.errors,
        failure: dmsError ? `The dms failed while writing document ${document.id}: ${errorMessage(dmsError)}` : null,
      };
    },
    fail(document, trigger, ctx, message) {
      for (const { selected, engineTrigger } of arrivalPasses(rules, trigger))
        pipeline.fail(
          document,
          selected,
          { trigger: engineTrigger, source: ctx.source, eventId: ctx.eventId, dryRun: ctx.dryRun },
          message,
        );
    },
  };
}
