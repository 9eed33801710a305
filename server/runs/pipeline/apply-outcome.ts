import type { ChangeField, DocumentPlan } from './plan-changes.js';

/**
 * What writing one document's plan did, field by field — the one outcome every path records, whether the
 * plan went out as its own writes (`writePlan`), inside a job's bulk edit, or not at all (a dry run, a
 * document the loop breaker holds).
 */
export interface ApplyOutcome {
  /** Fields the dms accepted (always empty in a dry run). */
  written: ChangeField[];
  failures: Partial<Record<ChangeField, string>>;
  /** Fields a person changed between the read and the write, left as they set them (with the reason). */
  superseded: Partial<Record<ChangeField, string>>;
  /** The first dms error (for a synchronous run's 502); null when the dms accepted everything. */
  dmsError: Error | null;
  /** Set when the last write gave the document away and the dms no longer shows it to the token (Paperless 2.x). */
  givenAway?: string;
}

/** Nothing written: a dry run, or a real run with nothing to write. Only the planner's failures stand. */
export function unwrittenOutcome(plan: DocumentPlan): ApplyOutcome {
  return { written: [], failures: { ...plan.failures }, superseded: {}, dmsError: null };
}

/** Every field the plan changes and the planner did not already fail fails with `reason` (a write that threw). */
export function refusedOutcome(plan: DocumentPlan, reason: string, dmsError: Error | null = null): ApplyOutcome {
  const failures = { ...plan.failures };
  for (const field of plan.changed) failures[field] ??= reason;
  return { written: [], failures, superseded: {}, dmsError };
}

/** A job's bulk edit carried the whole plan (only plans without failures go that way). */
export function bulkWrittenOutcome(plan: DocumentPlan): ApplyOutcome {
  return {
    written: plan.changed.filter((field) => !plan.failures[field]),
    failures: { ...plan.failures },
    superseded: {},
    dmsError: null,
  };
}

/**
 * The one meaning of "changed" (event counts, job reports, the webhook's own-write mark): the fields that
 * reached the dms, or in a dry run the fields that would be written. A field whose write failed is not changed.
 */
export function changedFields(plan: DocumentPlan, outcome: ApplyOutcome, dryRun: boolean): ChangeField[] {
  return dryRun ? plan.changed.filter((field) => !outcome.failures[field]) : outcome.written;
}
