import type { DmsClient } from '../../dms/types.js';
import type { Logger } from '../../log.js';
import type { CreationLimiter } from './creation-guard.js';
import type { EchoWrites } from '../echo/echo-writes.js';
import type { LoopBreaker } from '../echo/loop-breaker.js';
import { unwrittenOutcome, type ApplyOutcome } from './apply-outcome.js';
import type { PlannedRun } from './plan-run.js';
import { writePlan } from './write-plan.js';
import type { WriteJournal } from '../journal/write-journal.js';

export interface WriteDeps {
  dms: DmsClient;
  echoes: EchoWrites & Pick<LoopBreaker, 'holdReason'>;
  logger: Logger;
  /** Caps `create_missing` creations; without it they are not capped. */
  creations?: CreationLimiter;
  /** Every write is recorded here before it is sent (runs/journal/); `dmsKey` names the dms it goes to. */
  journal?: Pick<WriteJournal, 'begin'>;
  dmsKey?: () => string;
}

/**
 * The write step for one planned document: nothing in a dry run; nothing (every changed field failed with
 * the reason) when the loop breaker holds an automatic run's document; otherwise `writePlan`. The caller
 * holds the document's lane (`runs/lane/`) around this step.
 */
export async function writeRun(deps: WriteDeps, planned: PlannedRun): Promise<ApplyOutcome> {
  const { plan, ctx, document } = planned;
  if (ctx.dryRun) return unwrittenOutcome(plan);
  // Loop breaker: only automatic runs (webhook, catch-up) are held; a person's manual run or job is not.
  const held = ctx.source === 'webhook' || ctx.source === 'catchup' ? deps.echoes.holdReason(document.id) : null;
  if (held && plan.changed.length > 0) {
    deps.logger.warn(held);
    return {
      written: [],
      failures: Object.fromEntries(plan.changed.map((f) => [f, held])),
      superseded: {},
      dmsError: null,
    };
  }
  return writePlan(deps.dms, plan, deps.echoes, {
    creations: deps.creations?.forRun(ctx.source, ctx.eventId),
    sideEffects: planned.effects,
    journal: deps.journal && {
      journal: deps.journal,
      dms: deps.dmsKey?.() ?? 'dms',
      event: ctx.eventId,
      source: ctx.source,
      rules: planned.evaluation.results.filter((r) => r.status === 'matched').map((r) => r.rule_id),
      ...(ctx.trigger === 'added' ? { added: document.added } : {}),
    },
  });
}
