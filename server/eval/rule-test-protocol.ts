import type { RuleDefinition, RuleTestOutcome } from '../engine/engine.js';

/** Run `definition`'s `tests:` from index `from` on (earlier ones are done, or were stopped). */
export interface RuleTestJob {
  definition: RuleDefinition;
  vars: Record<string, unknown>;
  file: string;
  now: number;
  from: number;
  firstFailure: boolean;
}

/** One message per test as it finishes, then `done`; `failed` when the rule could not even be compiled. */
export type RuleTestAnswer = { index: number; outcome: RuleTestOutcome } | { done: true } | { failed: string };

/** Slots of the progress array the worker shares with the runner's watchdog. */
export const TEST_PROGRESS = { test: 0, startedAt: 1, size: 2 } as const;
