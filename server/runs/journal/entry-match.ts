import type { DmsHistoryEntry } from '../../dms/types.js';
import type { JournalRun } from './write-journal.js';

/** Python's `str()` of a stored value, as auditlog writes it into an entry. */
function pyStr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  return String(value);
}

/** Two logged values alike: the same text, or the same amount (a monetary field logs `EUR39.95`, the service may hold 39.95). */
function sameLogged(logged: unknown, written: unknown): boolean {
  const a = pyStr(logged);
  const b = pyStr(written);
  if (a === b) return true;
  const amount = (s: string) => Number(s.replace(/^[A-Z]{3}/, ''));
  return a !== '' && b !== '' && !Number.isNaN(amount(a)) && amount(a) === amount(b);
}

interface Written {
  fields: Map<string, unknown[]>;
  tags: boolean;
  customFields: Array<{ field: number; value: unknown }>;
  notes: Set<number>;
}

/** Every value the runs sent (and the dms accepted, or may have) to the document. */
function written(runs: readonly JournalRun[]): Written {
  const out: Written = { fields: new Map(), tags: false, customFields: [], notes: new Set() };
  for (const run of runs) {
    if (run.end?.status === 'not_applied') continue;
    run.entry.writes.forEach((write, i) => {
      if (run.outcomes[i]?.ok === false) return;
      if (write.kind === 'patch')
        for (const [key, value] of Object.entries(write.patch))
          out.fields.set(key, [...(out.fields.get(key) ?? []), value]);
      else if (write.kind === 'tags') out.tags = true;
      else if (write.kind === 'custom_fields') out.customFields.push(...write.set);
      else if (write.kind === 'note') {
        const id = run.outcomes[i]?.note;
        if (id !== undefined) out.notes.add(id);
      }
    });
  }
  return out;
}

/** A custom field as the audit log names it: by name, a select option by its label (the journal holds its id). */
export type FieldNames = (id: number) => { name: string; select: boolean } | undefined;

/**
 * The test of whether an audit-log entry is the service's own (docs/jobs-and-webhook.md#the-write-journal), by its
 * content, not by its actor alone: Paperless logs a token request's notes and bulk custom-field values with no
 * actor. An entry of the service's own user or of none is the service's when every change in it is a value these
 * runs sent to the document — a note by the id Paperless gave it, a custom field by name and value, a field by its
 * new value. The bulk edit's own entry (`[old pk, [new pks]]`, always naming the user) is the service's when it
 * sent that kind of change. Tags logged as an m2m change come from a save (a person's or a workflow's): the service
 * sends tags only by bulk edit. Another user's entry is never the service's.
 */
export function ownEntryTest(
  runs: readonly JournalRun[],
  self: number,
  field: FieldNames,
): (entry: DmsHistoryEntry) => boolean {
  const sent = written(runs);
  const own = (entry: DmsHistoryEntry, key: string, change: unknown): boolean => {
    const bulk = Array.isArray(change) && entry.actor?.id === self;
    if (key === 'Note Added') return Array.isArray(change) && sent.notes.has(Number(change[1]));
    if (key === 'tags') return bulk && sent.tags;
    if (key === 'custom_fields') {
      if (Array.isArray(change)) return bulk && sent.customFields.length > 0;
      const logged = change as { field?: string; value?: unknown };
      return sent.customFields.some((cf) => {
        const known = field(cf.field);
        return (
          known !== undefined && known.name === logged.field && (known.select || sameLogged(logged.value, cf.value))
        );
      });
    }
    const values = sent.fields.get(key);
    if (!values) return false;
    const to: unknown = Array.isArray(change) ? (change as unknown[])[1] : undefined;
    return (
      to === undefined ||
      values.some((value) => sameLogged(to, value) || (key === 'created' && String(value).startsWith(String(to))))
    );
  };
  return (entry) => {
    if (entry.actor !== null && entry.actor.id !== self) return false;
    const changes = Object.entries(entry.changes);
    if (changes.length === 0) return entry.actor !== null;
    return changes.every(([key, change]) => own(entry, key, change));
  };
}
