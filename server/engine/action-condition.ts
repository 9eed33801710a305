/**
 * `if:` on an action: the same condition language as `when:`, evaluated when the action's turn comes (so it sees
 * extracted values and what earlier actions changed). Its lines join the rule's conditions in the trace; a false
 * one skips the action and says what the condition saw.
 */
import type { ConditionTrace } from './model.js';
import type { CompiledAction } from './compile-actions.js';
import { evaluateCondition, type EvalContext } from './conditions.js';

/** Null when the action may run; else why it is skipped. Throws when the condition fails to evaluate. */
export function actionSkippedBy(a: CompiledAction, ctx: EvalContext, trace: ConditionTrace[]): string | null {
  if (!a.condition) return null;
  const lines: ConditionTrace[] = [];
  const outcome = evaluateCondition(a.condition, ctx, lines);
  trace.push(...lines);
  if (outcome.error) throw new Error(`the action's if: ${outcome.error}`);
  if (outcome.result) return null;
  // A combinator line only counts; the lines under it say what was seen.
  const seen = lines.filter((l) => l.field !== undefined).map((l) => l.description);
  return `skipped: condition false (${(seen.length ? seen : lines.map((l) => l.description)).join('; ')})`;
}
