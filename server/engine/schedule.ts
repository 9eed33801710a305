/**
 * A rule's `schedule:`: daily at a time, or a cron expression (croner). Pure: the next run is computed
 * from a time the caller passes in, never from the clock.
 */
import { Cron } from 'croner';
import type { RuleSchedule } from './model.js';
import { RuleCompileError, type RulePath } from './rule-errors.js';
import { errorMessage } from '../error-message.js';

export interface CompiledSchedule {
  /** A person-readable form, e.g. `daily at 06:30` or `cron 0 6 * * 1-5`. */
  description: string;
  /** The five-field cron pattern the schedule stands for. */
  pattern: string;
  dryRun: boolean;
}

const DAILY = /^([01]?\d|2[0-3]):([0-5]\d)$/;

export function compileSchedule(def: RuleSchedule, path: RulePath): CompiledSchedule {
  if (typeof def !== 'object' || def === null || Array.isArray(def))
    throw new RuleCompileError(path, 'schedule is a mapping such as { daily: "06:30" } or { cron: "0 6 * * 1-5" }');
  const dryRun = def.dry_run === true;
  if ((def.daily === undefined) === (def.cron === undefined))
    throw new RuleCompileError(
      path,
      'a schedule has exactly one of daily: "HH:MM" or cron: "<minute> <hour> <day> <month> <weekday>"',
    );
  if (def.daily !== undefined) {
    const m = DAILY.exec(def.daily.trim());
    if (!m)
      throw new RuleCompileError(
        [...path, 'daily'],
        `daily takes a time of day such as "06:30", not ${JSON.stringify(def.daily)}`,
      );
    return {
      description: `daily at ${m[1].padStart(2, '0')}:${m[2]}`,
      pattern: `${Number(m[2])} ${Number(m[1])} * * *`,
      dryRun,
    };
  }
  const pattern = String(def.cron).trim().replace(/\s+/g, ' ');
  // Five fields only: a seconds field would let a rule run a job over every document every second.
  if (pattern.split(' ').length !== 5)
    throw new RuleCompileError(
      [...path, 'cron'],
      `cron takes five fields (minute hour day month weekday), e.g. "0 6 * * 1-5"; got ${JSON.stringify(def.cron)}`,
    );
  try {
    new Cron(pattern, { paused: true });
  } catch (err) {
    throw new RuleCompileError(
      [...path, 'cron'],
      `invalid cron expression ${JSON.stringify(pattern)}: ${errorMessage(err)}`,
    );
  }
  return { description: `cron ${pattern}`, pattern, dryRun };
}

/** The first time strictly after `after` at which the schedule fires (server local time), or null if never. */
export function nextRunAfter(schedule: CompiledSchedule, after: Date): Date | null {
  return new Cron(schedule.pattern, { paused: true }).nextRun(after);
}
