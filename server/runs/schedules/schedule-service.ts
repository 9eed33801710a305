import type { CompiledSchedule } from '../../engine/schedule.js';
import { nextRunAfter } from '../../engine/schedule.js';
import type { Logger } from '../../log.js';
import type { LoadedRule } from '../../rules/rules.js';
import { readScheduleState, writeScheduleState, type RuleScheduleState, type ScheduleState } from './schedule-state.js';
import { errorMessage } from '../../error-message.js';

export interface ScheduledRule {
  ruleId: string;
  schedule: CompiledSchedule;
}

/** The enabled loaded rules that declare a schedule. */
export function scheduledRules(loaded: readonly LoadedRule[]): ScheduledRule[] {
  return loaded.flatMap((r) =>
    r.compiled.enabled && r.compiled.schedule ? [{ ruleId: r.id, schedule: r.compiled.schedule }] : [],
  );
}

export interface ScheduleServiceDeps {
  /** Enabled loaded rules that declare a schedule. */
  rules(): ScheduledRule[];
  /** Queues a background job of the rule over all documents; returns its event id. */
  startJob(ruleId: string, dryRun: boolean): number;
  /** Whether that job is still queued or running. */
  jobActive(eventId: number): boolean;
  /** JSON file in the data dir holding each rule's last run. */
  stateFile: string;
  logger: Logger;
  now?: () => Date;
  /** Arms a timer and returns its disarm function (tests inject one that never fires). */
  setTimer?: (fire: () => void, ms: number) => () => void;
}

/** One scheduled rule as the API and the Jobs page show it. */
export interface ScheduleEntry {
  rule_id: string;
  schedule: string;
  dry_run: boolean;
  next_run: string | null;
  last_run: string | null;
  last_event_id: number | null;
  last_skipped: string | null;
}

export interface ScheduleService {
  /** Loads the remembered runs, catches up what was missed while down, and arms the timer. */
  start(): Promise<void>;
  /** Starts every run that is due now; called by the timer and after each rules reload. */
  tick(): Promise<void>;
  list(): ScheduleEntry[];
  stop(): Promise<void>;
}

/** A timer this long at most, so a changed system clock or a machine waking from sleep is noticed soon. */
const MAX_WAIT_MS = 60_000;

const defaultTimer = (fire: () => void, ms: number): (() => void) => {
  const t = setTimeout(fire, ms);
  t.unref();
  return () => clearTimeout(t);
};

/**
 * Runs rules with a `schedule:` as background jobs. A due run is skipped while the rule's previous job is
 * still queued or running; runs missed while the service was down are caught up once, not once per slot.
 */
export function createScheduleService(deps: ScheduleServiceDeps): ScheduleService {
  const now = deps.now ?? (() => new Date());
  const setTimer = deps.setTimer ?? defaultTimer;
  let state: ScheduleState = {};
  let disarm: (() => void) | null = null;
  let started = false;
  let stopped = false;
  let chain: Promise<void> = Promise.resolve();

  const stateFor = (rule: ScheduledRule, at: Date): { st: RuleScheduleState; fresh: boolean } => {
    const known = state[rule.ruleId];
    if (known && known.pattern === rule.schedule.pattern) return { st: known, fresh: false };
    const st: RuleScheduleState = {
      pattern: rule.schedule.pattern,
      since: at.toISOString(),
      last_run: known?.last_run ?? null,
      last_event_id: known?.last_event_id ?? null,
      last_skipped: null,
    };
    state[rule.ruleId] = st;
    return { st, fresh: true };
  };

  const runDue = (rule: ScheduledRule, st: RuleScheduleState, at: Date): void => {
    const due = nextRunAfter(rule.schedule, new Date(st.since));
    if (!due || due > at) return;
    st.since = at.toISOString();
    if (st.last_event_id !== null && deps.jobActive(st.last_event_id)) {
      st.last_skipped = at.toISOString();
      deps.logger.warn(
        `schedules: skipped the run of rule ${rule.ruleId} due ${due.toISOString()}: its previous job (event ${st.last_event_id}) is still going.`,
      );
      return;
    }
    try {
      st.last_event_id = deps.startJob(rule.ruleId, rule.schedule.dryRun);
      st.last_run = at.toISOString();
      deps.logger.info(
        `schedules: started rule ${rule.ruleId} (${rule.schedule.description}) as event ${st.last_event_id}.`,
      );
    } catch (err) {
      deps.logger.error(`schedules: could not start rule ${rule.ruleId}: ${errorMessage(err)}`);
    }
  };

  const arm = (rules: ScheduledRule[], at: Date): void => {
    disarm?.();
    disarm = null;
    if (stopped || rules.length === 0) return;
    const next = Math.min(
      ...rules.map((r) => nextRunAfter(r.schedule, new Date(state[r.ruleId].since))?.getTime() ?? Infinity),
    );
    const wait = Math.min(Math.max(next - at.getTime(), 1000), MAX_WAIT_MS);
    disarm = setTimer(() => void service.tick(), wait);
  };

  const tickOnce = async (): Promise<void> => {
    // Before start() has read the state, a tick would count every schedule from now and lose the catch-up.
    if (!started || stopped) return;
    const at = now();
    const rules = deps.rules();
    const before = JSON.stringify(state);
    for (const rule of rules) {
      const { st, fresh } = stateFor(rule, at);
      // A schedule seen for the first time counts from now: adding one must not fire a run at once.
      if (!fresh) runDue(rule, st, at);
    }
    const scheduled = new Set(rules.map((r) => r.ruleId));
    for (const id of Object.keys(state)) if (!scheduled.has(id)) delete state[id];
    if (JSON.stringify(state) !== before) {
      await writeScheduleState(deps.stateFile, state).catch((err: unknown) =>
        deps.logger.error(`schedules: could not save ${deps.stateFile}: ${errorMessage(err)}`),
      );
    }
    arm(rules, at);
  };

  const service: ScheduleService = {
    async start() {
      state = await readScheduleState(deps.stateFile, deps.logger);
      started = true;
      await service.tick();
    },
    tick() {
      chain = chain.then(tickOnce, tickOnce);
      return chain;
    },
    list() {
      return deps.rules().map((rule) => {
        const st = state[rule.ruleId] as RuleScheduleState | undefined;
        const since = st && st.pattern === rule.schedule.pattern ? new Date(st.since) : now();
        return {
          rule_id: rule.ruleId,
          schedule: rule.schedule.description,
          dry_run: rule.schedule.dryRun,
          next_run: nextRunAfter(rule.schedule, since)?.toISOString() ?? null,
          last_run: st?.last_run ?? null,
          last_event_id: st?.last_event_id ?? null,
          last_skipped: st?.last_skipped ?? null,
        };
      });
    },
    async stop() {
      stopped = true;
      disarm?.();
      await chain;
    },
  };
  return service;
}
