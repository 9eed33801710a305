import type { DmsClient } from '../../dms/types.js';
import type { Trace } from '../../engine/model.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../app-errors.js';
import type { EventKind, EventRecord, EventStatus, EventStore } from '../../history/event-store.js';
import { isFinished } from '../../history/event-store.js';
import type { Logger } from '../../log.js';
import type { EchoWrites } from '../echo/echo-writes.js';
import type { DocumentLane } from '../lane/document-lane.js';
import type { LoadedRule } from '../../rules/rules.js';
import type { RunPipeline } from '../pipeline/run-pipeline.js';
import { createJobQueue, type JobQueue } from './job-queue.js';
import { runRevertJob } from './revert-job.js';
import { runRuleJob } from './rule-job.js';
import type { WriteJournal } from '../journal/write-journal.js';
import type { ArrivalJournal } from '../journal/arrival-journal.js';

export interface JobServiceDeps {
  dms: DmsClient;
  events: EventStore;
  /** The one run pipeline: a job plans, writes (bulk edits in between) and records through it. */
  pipeline: RunPipeline;
  echoes: EchoWrites;
  /** Every write recorded before it is sent; a resumed job skips what the jobs it continues wrote. */
  journal?: Pick<WriteJournal, 'begin' | 'appliedFor' | 'runsOfEvent'>;
  dmsKey?: () => string;
  /** Jobs wait for the start's reconciliation; a resumed one reconciles its documents before it decides what is done. */
  recovery?: Pick<ArrivalJournal, 'ready' | 'reconcileInLane'>;
  /** Jobs hold the lanes of the documents they write while they write them (docs/jobs-and-webhook.md). */
  lane: DocumentLane;
  traces: { append(traces: Trace[]): void };
  /** The loaded (valid) rule with this id, or undefined. A job looks it up once, when it starts. */
  getRule(id: string): LoadedRule | undefined;
  logger: Logger;
  concurrency?: number;
  pageSize?: number;
  maxQueued?: number;
  now?: () => Date;
}

export interface EventListQuery {
  limit?: number;
  kind?: EventKind;
  status?: EventStatus;
}

/** Background jobs: one rule over all documents, and undo of a job. Exposed as `services.jobs`. */
export interface JobService {
  /** Queues a run of one rule over every document; answers at once. Unknown rule: 404. */
  startRuleJob(input: { ruleId: string; dryRun: boolean; appliedFrom?: number }): {
    event_id: number;
    event: EventRecord;
  };
  /** Continues an interrupted rule job with the documents it had not reached (a new job event). */
  resume(eventId: number): EventRecord;
  /** Runs a finished dry run's rule for real, once: the dry record then says `applied_as`, the new one `applied_from`. */
  apply(eventId: number): EventRecord;
  /** Queues the undo of a finished real job or webhook run. */
  revert(eventId: number, options: { dryRun: boolean }): EventRecord;
  cancel(eventId: number): EventRecord;
  get(eventId: number): EventRecord;
  list(query?: EventListQuery): EventRecord[];
  /** Resolves when no job is queued or running (tests). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export function createJobService(deps: JobServiceDeps): JobService {
  const { events } = deps;
  const now = deps.now ?? (() => new Date());
  const concurrency = deps.concurrency ?? 4;
  const queue: JobQueue = createJobQueue(events, deps.logger, { maxQueued: deps.maxQueued ?? 20 });
  const ruleJobDeps = {
    dms: deps.dms,
    pipeline: deps.pipeline,
    events,
    echoes: deps.echoes,
    journal: deps.journal,
    dmsKey: deps.dmsKey,
    recovery: deps.recovery,
    lane: deps.lane,
    concurrency,
    pageSize: deps.pageSize,
    now,
  };

  const get = (eventId: number): EventRecord => {
    const record = events.get(eventId);
    if (!record) throw new NotFoundError(`There is no event ${eventId}; the Jobs page lists the recent ones.`);
    return record;
  };

  /** A linked follow-up counts unless it failed, was cancelled or interrupted (then it may be tried again). */
  const stillStands = (linked: number | null | undefined): boolean => {
    const status = linked != null ? events.get(linked)?.status : undefined;
    return status !== undefined && !['failed', 'cancelled', 'interrupted'].includes(status);
  };

  const service: JobService = {
    startRuleJob({ ruleId, dryRun, appliedFrom }) {
      const rule = deps.getRule(ruleId);
      if (!rule)
        throw new NotFoundError(
          `No loaded rule has the id "${ruleId}"; check the rule files (a file that fails validation is not loaded).`,
        );
      const event = events.create({ kind: 'job', rule_id: ruleId, dry_run: dryRun, applied_from: appliedFrom ?? null });
      queue.submit(event, (eventId, signal) => {
        // The rule as loaded when the job starts (an edit saved while it waited in the queue counts); from here
        // on the job holds this version, so its prefilter and every document's evaluation agree.
        const current = deps.getRule(ruleId) ?? rule;
        return runRuleJob(ruleJobDeps, eventId, current, dryRun, signal);
      });
      return { event_id: event.event_id, event };
    },
    resume(eventId) {
      const target = get(eventId);
      if (target.kind !== 'job' || target.rule_id === null)
        throw new BadRequestError(
          `Event ${eventId} is a ${target.kind}, not a rule job; only rule jobs can be resumed.`,
        );
      if (target.status !== 'interrupted')
        throw new ConflictError(
          `Event ${eventId} is ${target.status}; only an interrupted job can be resumed (start a new one instead).`,
        );
      const resumedAs = events.list({ kind: 'job', limit: 1000 }).find((e) => e.resumes === eventId);
      if (resumedAs)
        throw new ConflictError(
          `Event ${eventId} was already resumed as event ${resumedAs.event_id}; resume that one if it was interrupted too.`,
        );
      const ruleId = target.rule_id;
      const rule = deps.getRule(ruleId);
      if (!rule)
        throw new NotFoundError(
          `The rule "${ruleId}" of event ${eventId} is no longer loaded; fix its file, then resume.`,
        );
      const event = events.create({ kind: 'job', rule_id: ruleId, dry_run: target.dry_run, resumes: eventId });
      const resumeAfter = target.resume_after ?? 0;
      // This job and every job it continued in turn: what any of them wrote is in the journal under its event.
      const continues: number[] = [];
      let earlier: EventRecord | undefined = target;
      while (earlier && !continues.includes(earlier.event_id)) {
        continues.push(earlier.event_id);
        earlier = earlier.resumes != null ? events.get(earlier.resumes) : undefined;
      }
      queue.submit(event, (id, signal) =>
        runRuleJob(ruleJobDeps, id, deps.getRule(ruleId) ?? rule, target.dry_run, signal, resumeAfter, continues),
      );
      return event;
    },
    apply(eventId) {
      const dry = get(eventId);
      if (dry.kind !== 'job' || !dry.dry_run || !dry.rule_id)
        throw new BadRequestError(`Event ${eventId} is not a dry run of a rule; only those can be applied.`);
      if (dry.status !== 'done')
        throw new ConflictError(`Dry run ${eventId} is ${dry.status}; only a finished dry run can be applied.`);
      if (stillStands(dry.applied_as))
        throw new ConflictError(`Dry run ${eventId} was already applied as job #${dry.applied_as}.`);
      const { event } = service.startRuleJob({ ruleId: dry.rule_id, dryRun: false, appliedFrom: eventId });
      events.update(eventId, { applied_as: event.event_id });
      return event;
    },
    revert(eventId, { dryRun }) {
      const target = get(eventId);
      if (target.kind === 'revert')
        throw new BadRequestError(`Event ${eventId} is itself a revert; revert the original job again instead.`);
      if (target.dry_run)
        throw new ConflictError(`Event ${eventId} was a dry run: it wrote nothing, so there is nothing to undo.`);
      if (!isFinished(target.status))
        throw new ConflictError(
          `Event ${eventId} is still ${target.status}; cancel it or wait for it to end, then revert.`,
        );
      const journal = deps.journal;
      if (!journal) throw new ConflictError('Undo needs the write journal, which this service runs without.');
      if (!dryRun && stillStands(target.undone_by))
        throw new ConflictError(`Event ${eventId} was already undone by #${target.undone_by}.`);
      const event = events.create({
        kind: 'revert',
        rule_id: target.rule_id,
        dry_run: dryRun,
        reverts: eventId,
        document: target.document,
      });
      if (!dryRun) events.update(eventId, { undone_by: event.event_id });
      queue.submit(event, (id, signal) =>
        runRevertJob(
          {
            dms: deps.dms,
            events,
            traces: deps.traces,
            echoes: deps.echoes,
            journal,
            dmsKey: deps.dmsKey,
            recovery: deps.recovery,
            lane: deps.lane,
            concurrency,
            now,
          },
          id,
          target,
          dryRun,
          signal,
        ),
      );
      return event;
    },
    cancel: (eventId) => {
      get(eventId);
      return queue.cancel(eventId);
    },
    get,
    list: (query = {}) => events.list({ ...query, limit: Math.min(Math.max(query.limit ?? 100, 1), 1000) }),
    idle: () => queue.idle(),
    stop: () => queue.stop(),
  };
  return service;
}
