import { randomUUID } from 'node:crypto';
import type { ActionName, ActionTrace, FieldChange, Trace, TraceSource } from '../../engine/model.js';
import type { JournalWrite } from './journal-records.js';
import type { JournalRun } from './write-journal.js';

const ACTION_OF: Record<JournalWrite['kind'], ActionName> = {
  patch: 'set_title',
  tags: 'add_tags',
  custom_fields: 'set_custom_fields',
  note: 'add_note',
  trash: 'move_to_trash',
};

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
  const actions: ActionTrace[] = run.entry.writes.map((write, i) => ({
    path: `actions/${i}`,
    action: ACTION_OF[write.kind],
    status: run.outcomes[i]?.ok === true ? 'applied' : 'failed',
    detail: 'recorded from the write journal after a restart',
    ...(run.outcomes[i]?.ok === true ? {} : { error: run.outcomes[i]?.error ?? 'not applied' }),
  }));
  return run.entry.rules.map((rule) => ({
    id: randomUUID(),
    at: at.toISOString(),
    duration_ms: 0,
    source: run.entry.source as TraceSource,
    event_id: run.entry.event,
    document: run.entry.doc,
    rule_id: rule,
    file: file(rule),
    dry_run: false,
    status: 'matched',
    conditions: [],
    extracted: {},
    changes,
    actions,
    error: null,
  }));
}
