import type { ActionTrace, FieldChange, Trace, TraceSource } from '../../engine/model.js';
import { actionForField, toTrace } from '../pipeline/trace-outcome.js';
import { fieldsOf } from './journal-records.js';
import type { JournalRun } from './write-journal.js';

/** What one recorded request changed, field by field, as a trace names it. */
function changesOf(run: JournalRun): Record<string, FieldChange> {
  const { read } = run.entry;
  const changes: Record<string, FieldChange> = {};
  run.entry.writes.forEach((write, i) => {
    if (run.outcomes[i]?.ok !== true) return;
    if (write.kind === 'patch')
      for (const [key, to] of Object.entries(write.patch))
        changes[key] = { from: (read as unknown as Record<string, unknown>)[key] ?? null, to };
    else if (write.kind === 'tags') changes.tags = { from: read.tags, to: { add: write.add, remove: write.remove } };
    else if (write.kind === 'custom_fields')
      changes.custom_fields = { from: Object.fromEntries(read.custom_fields), to: write.set };
    else if (write.kind === 'note') changes.notes = { from: null, to: [write.text] };
    else changes.trash = { from: false, to: true };
  });
  return changes;
}

/**
 * The traces of a run whose writes reached the dms but whose traces a kill lost (traces are written in batches):
 * rebuilt from the journal, one per rule that planned the writes, saying what was applied and that the rest of
 * the evaluation (conditions, extracted values) was not kept.
 */
export function tracesFromJournal(run: JournalRun, file: (rule: string) => string, at: Date): Trace[] {
  const changes = changesOf(run);
  const actions: ActionTrace[] = run.entry.writes.flatMap((write, i) => {
    const ok = run.outcomes[i]?.ok === true;
    return fieldsOf(write).map((field) => ({
      path: `actions/${i}`,
      action: actionForField(field),
      status: ok ? ('applied' as const) : ('failed' as const),
      detail: 'recorded from the write journal after a restart',
      ...(ok ? {} : { error: run.outcomes[i]?.error ?? 'not applied' }),
    }));
  });
  const ctx = {
    source: run.entry.source as TraceSource,
    eventId: run.entry.event,
    document: run.entry.doc,
    dryRun: false,
    startedAt: at.getTime(),
    now: () => at,
  };
  return run.entry.rules.map((rule) =>
    toTrace(
      {
        rule_id: rule,
        file: file(rule),
        status: 'matched',
        conditions: [],
        extracted: {},
        changes,
        actions,
        error: null,
      },
      ctx,
    ),
  );
}
