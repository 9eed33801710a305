import { randomUUID } from 'node:crypto';
import type { RuleResult } from '../../engine/engine.js';
import type { ActionName, ActionTrace, Trace, TraceSource } from '../../engine/model.js';
import type { ChangeField } from './plan-changes.js';

/** The document field each action writes, so a field's fate (written, unchanged, failed) reaches its actions. */
const FIELD_ACTION: Record<string, ActionName> = {
  title: 'set_title',
  tags: 'set_tags',
  correspondent: 'set_correspondent',
  document_type: 'set_document_type',
  storage_path: 'set_storage_path',
  custom_fields: 'set_custom_fields',
  created: 'set_created',
  archive_serial_number: 'set_archive_serial_number',
  owner: 'set_owner',
  permissions: 'set_permissions',
  notes: 'add_note',
  trash: 'move_to_trash',
};

/** The action a trace names for a field written without the rule's own actions at hand (undo, the journal). */
export function actionForField(field: string): ActionName {
  return FIELD_ACTION[field.split('.')[0]] ?? 'set_title';
}

export const ACTION_FIELDS: Record<Exclude<ActionName, 'notify'>, ChangeField> = {
  set_title: 'title',
  add_tags: 'tags',
  remove_tags: 'tags',
  set_tags: 'tags',
  set_correspondent: 'correspondent',
  set_document_type: 'document_type',
  set_storage_path: 'storage_path',
  set_custom_fields: 'custom_fields',
  add_custom_fields: 'custom_fields',
  remove_custom_fields: 'custom_fields',
  set_created: 'created',
  set_archive_serial_number: 'archive_serial_number',
  add_note: 'notes',
  set_owner: 'owner',
  set_permissions: 'permissions',
  add_permissions: 'permissions',
  remove_permissions: 'permissions',
  move_to_trash: 'trash',
};

/** What happened to the merged write of one document, field by field. */
export interface FieldOutcome {
  dryRun: boolean;
  /** Fields the plan changes. */
  changed: readonly ChangeField[];
  /** Fields the dms accepted (real mode only). */
  written: readonly ChangeField[];
  failures: Partial<Record<ChangeField, string>>;
  /** Fields a person changed between the read and the write, left as they set them. */
  superseded?: Partial<Record<ChangeField, string>>;
}

function markAction(action: ActionTrace, outcome: FieldOutcome): ActionTrace {
  // The engine already decided these: an action that did nothing to the in-memory copy, or one not reached.
  if (action.status === 'skipped' || action.status === 'failed') return action;
  // A notify writes no field; whether it was sent is settled after the write (runs/notify).
  if (action.action === 'notify') return action;
  const field = ACTION_FIELDS[action.action];
  const failure = outcome.failures[field];
  if (failure) return { ...action, status: 'failed', error: failure };
  if (action.status === 'unchanged') return action;
  const superseded = outcome.superseded?.[field];
  if (superseded && !outcome.written.includes(field)) return { ...action, status: 'skipped', detail: superseded };
  if (!outcome.changed.includes(field)) return { ...action, status: 'unchanged' };
  if (outcome.dryRun) return { ...action, status: 'planned' };
  if (superseded)
    return { ...action, status: 'applied', detail: action.detail ? `${action.detail}; ${superseded}` : superseded };
  return outcome.written.includes(field)
    ? { ...action, status: 'applied' }
    : { ...action, status: 'failed', error: 'Not written: the dms write for this document did not complete.' };
}

/**
 * Sets each action of a matched rule's trace to planned / applied / unchanged / failed. A failed action
 * makes the trace an `error` trace whose `error` names the first failure, so filtering by status finds it.
 */
export function withFieldOutcome(trace: Trace, outcome: FieldOutcome): Trace {
  if (trace.status !== 'matched') return trace;
  const actions = trace.actions.map((a) => markAction(a, outcome));
  const failed = actions.find((a) => a.status === 'failed');
  if (!failed) return { ...trace, actions };
  return {
    ...trace,
    actions,
    status: 'error',
    error: trace.error ?? `${failed.action} failed: ${failed.error ?? 'unknown error'}`,
  };
}

/** Where and how a trace was made: the fields the engine's per-rule result lacks (docs/rules.md#traces). */
export interface TraceContext {
  source: TraceSource;
  eventId: number | null;
  document: number;
  dryRun: boolean;
  startedAt: number;
  now: () => Date;
}

/** The engine's result for one rule plus the run's context: one complete trace. */
export function toTrace(result: RuleResult, ctx: TraceContext): Trace {
  const at = ctx.now();
  return {
    id: randomUUID(),
    at: at.toISOString(),
    duration_ms: Math.max(0, at.getTime() - ctx.startedAt),
    source: ctx.source,
    event_id: ctx.eventId,
    document: ctx.document,
    rule_id: result.rule_id,
    file: result.file,
    dry_run: ctx.dryRun,
    status: result.status,
    conditions: result.conditions,
    extracted: result.extracted,
    changes: result.changes,
    actions: result.actions,
    error: result.error,
  };
}

/** A trace for a rule that could not be evaluated at all (document missing, dms down, unexpected failure). */
export function errorTrace(rule: { id: string; file: string }, message: string, ctx: TraceContext): Trace {
  return toTrace(
    {
      rule_id: rule.id,
      file: rule.file,
      status: 'error',
      conditions: [],
      extracted: {},
      changes: {},
      actions: [],
      error: message,
    },
    ctx,
  );
}
