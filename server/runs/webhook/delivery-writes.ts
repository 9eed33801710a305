import type { DmsDocument } from '../../dms/types.js';
import type { Logger } from '../../log.js';
import type { LoadedRule } from '../../rules/rules.js';
import type { EchoLedger } from '../echo/echo-ledger.js';
import { writePlans, type PageWriteDeps } from '../jobs/page-writes.js';
import type { ApplyOutcome } from '../pipeline/apply-outcome.js';
import { isEmptyPlan } from '../pipeline/plan-changes.js';
import { failedRun, type PlannedRun, type RunContext } from '../pipeline/plan-run.js';
import type { RunRecord } from '../pipeline/record-run.js';
import type { RunPipeline } from '../pipeline/run-pipeline.js';

export interface DeliveryWritesDeps extends Omit<PageWriteDeps, 'lane' | 'pipeline' | 'echoes'> {
  pipeline: RunPipeline;
  echoes: Pick<EchoLedger, 'mark' | 'settle' | 'refused' | 'holdReason'>;
  logger: Logger;
}

/** The deliveries of one batch, by event id; each ends (`leave`) when its run in its lane is over. */
export interface DeliveryRound {
  leave(eventId: number): void;
  /** Every delivery left (the batch is over, whatever happened to them). */
  close(): void;
}

export interface DeliveryWrites {
  /**
   * The run pipeline for webhook deliveries: `run` plans, writes and records as the pipeline does, except that a
   * delivery of an open round hands its plan to the round, which writes the plans of all its deliveries together.
   */
  readonly pipeline: RunPipeline;
  /** Opens a round for deliveries read together (distinct documents, each run in its own lane). */
  round(eventIds: readonly number[]): DeliveryRound;
  /**
   * The delivery holds its document's lane: its round waits for its plan. One still waiting for its lane is not
   * waited for (it writes alone): that lane's holder may be a job's page waiting for a lane a member holds.
   */
  inLane(eventId: number): void;
}

type Member =
  | { state: 'outside' | 'before' | 'past' | 'left' }
  | { state: 'waiting'; planned: PlannedRun; done(outcomes: Map<number, ApplyOutcome> | Error): void };

/**
 * A burst of deliveries written as a job writes a page (docs/jobs-and-webhook.md#bursts-of-deliveries): every
 * delivery of a round runs in its own lane exactly as alone (reconcile, read, echo check, plan), and when each that
 * holds its lane has planned, or ended without a plan, the round writes their plans at once with `writePlans` — identical changes as
 * grouped bulk edits, journal records before they leave, settled with an expectation so attribution holds, the rest
 * (PATCH-only fields, notes, names to create, documents edited since the read) as each delivery's own write. Each
 * delivery then records its traces and its event as alone.
 */
export function createDeliveryWrites(deps: DeliveryWritesDeps): DeliveryWrites {
  const { pipeline } = deps;
  const rounds = new Map<number, Map<number, Member>>();

  const flush = (members: Map<number, Member>) => {
    const waiting: Array<Extract<Member, { state: 'waiting' }>> = [];
    for (const member of members.values()) {
      if (member.state === 'before') return;
      if (member.state === 'waiting') waiting.push(member);
    }
    if (waiting.length === 0) return;
    for (const [id, member] of members) if (member.state === 'waiting') members.set(id, { state: 'past' });
    writePlans(
      { ...deps, pipeline: { write: (planned) => pipeline.write(planned) } },
      waiting.map((m) => m.planned),
    ).then(
      (outcomes) => waiting.forEach((m) => m.done(outcomes)),
      (err: unknown) => waiting.forEach((m) => m.done(err instanceof Error ? err : new Error(String(err)))),
    );
  };

  const set = (eventId: number | null, member: Member) => {
    const members = eventId === null ? undefined : rounds.get(eventId);
    if (!members || eventId === null || members.get(eventId)?.state === 'left') return;
    members.set(eventId, member);
    flush(members);
  };

  /** The write step: through the delivery's round when it has one and its plan may go in a bulk edit, else alone. */
  const write = (planned: PlannedRun): Promise<ApplyOutcome> => {
    const { ctx, plan, document } = planned;
    const members = ctx.eventId === null ? undefined : rounds.get(ctx.eventId);
    const alone = !members || ctx.dryRun || isEmptyPlan(plan) || deps.echoes.holdReason(document.id) !== null;
    if (alone) {
      set(ctx.eventId, { state: 'past' });
      return pipeline.write(planned);
    }
    return new Promise<ApplyOutcome>((resolve, reject) =>
      set(ctx.eventId, {
        state: 'waiting',
        planned,
        done: (outcomes) => {
          if (outcomes instanceof Error) return reject(outcomes);
          const outcome = outcomes.get(document.id);
          // writePlans answers every plan it is given (empty plans never reach it: they are written alone above);
          // should one be missing all the same, it is written on its own rather than left unanswered.
          if (outcome) resolve(outcome);
          else pipeline.write(planned).then(resolve, reject);
        },
      }),
    );
  };

  const run = async (document: DmsDocument, rules: readonly LoadedRule[], ctx: RunContext): Promise<RunRecord> => {
    const planned = await pipeline.plan(document, rules, ctx);
    if (planned.kind === 'failed') {
      set(ctx.eventId, { state: 'past' });
      return pipeline.record(planned, null);
    }
    let outcome: ApplyOutcome;
    try {
      outcome = await write(planned);
    } catch (err) {
      const { rules: asked, ctx: context, startedAt } = planned;
      return pipeline.record(
        failedRun(deps, { document: document.id, rules: asked, ctx: context, startedAt }, err),
        null,
      );
    }
    return pipeline.record(planned, outcome);
  };

  return {
    pipeline: { ...pipeline, run },
    round(eventIds) {
      const members = new Map<number, Member>(eventIds.map((id) => [id, { state: 'outside' }]));
      for (const id of eventIds) rounds.set(id, members);
      const leave = (eventId: number) => {
        if (rounds.get(eventId) !== members) return;
        rounds.delete(eventId);
        members.set(eventId, { state: 'left' });
        flush(members);
      };
      return { leave, close: () => eventIds.forEach(leave) };
    },
    inLane(eventId) {
      const members = rounds.get(eventId);
      if (members?.get(eventId)?.state === 'outside') members.set(eventId, { state: 'before' });
    },
  };
}
