import { isDeepStrictEqual } from 'node:util';
import type {
  DmsCustomField,
  DmsDocument,
  DmsPermissions,
  DmsPermissionsPatch,
  DocumentPatch,
} from '../../dms/types.js';
import type { PermissionKind, PermissionTarget } from '../../engine/model.js';
import type { JournalRun } from '../journal/write-journal.js';
import { sameWireValue, type ChangeField, type CustomFieldDelta, type TagDelta } from '../pipeline/plan-changes.js';
import { SCALARS, sameScalar } from '../pipeline/replan-fresh.js';
import { dateOnly } from '../documents/rule-document.js';

type Scalar = (typeof SCALARS)[number];
export type PermissionList = `${PermissionKind}.${PermissionTarget}`;
const LISTS: readonly PermissionList[] = ['view.users', 'view.groups', 'change.users', 'change.groups'];

/** A custom field on a document: not attached, or attached with its value as Paperless stores it. */
export type Slot = { attached: false } | { attached: true; value: unknown };

/**
 * What one event wrote to one document, merged over its journal runs (oldest first): per field the state the
 * first run that wrote it read (what undo restores) and the last value sent (what the document must still hold).
 */
export interface JobWrites {
  document: number;
  /** The dms (its key) the runs wrote to. */
  dms: string;
  rules: string[];
  scalars: Partial<Record<Scalar, { before: unknown; sent: unknown }>>;
  /** Tag id → present before, and present as sent. */
  tags: Record<number, { before: boolean; sent: boolean }>;
  /** Custom field id → its slot before, and as sent. */
  fields: Record<number, { before: Slot; sent: Slot }>;
  /** `before` null: the run did not read the permissions (a record written before they were kept). */
  permissions: Partial<Record<PermissionList, { before: number[] | null; sent: number[] }>>;
  trash: boolean;
}

/** Keeps the first run's `before` for a field; the caller then moves `sent` on to the latest value. */
function first<T>(record: Partial<Record<string | number, T>>, key: string | number, value: T): void {
  if (!(key in record)) record[key] = value;
}

/**
 * The writes of an event per document, from its journal runs (as `runsOfEvent` gives them): runs that never
 * reached the dms and requests the dms refused are left out; a request whose answer a kill cut off counts (the
 * document decides: undo restores a field only while it holds the value sent).
 */
export function jobWrites(runs: readonly JournalRun[]): JobWrites[] {
  const byDoc = new Map<string, JobWrites>();
  for (const run of runs) {
    if (run.end?.status === 'not_applied') continue;
    const { dms, doc, read } = run.entry;
    const key = `${dms}#${doc}`;
    const w = byDoc.get(key) ?? {
      document: doc,
      dms,
      rules: [],
      scalars: {},
      tags: {},
      fields: {},
      permissions: {},
      trash: false,
    };
    const readFields = new Map(read.custom_fields);
    let wrote = false;
    run.entry.writes.forEach((write, i) => {
      if (run.outcomes[i]?.ok === false || write.kind === 'note') return; // notes are added, never taken back
      wrote = true;
      if (write.kind === 'trash') w.trash = true;
      else if (write.kind === 'tags') {
        for (const [ids, sent] of [
          [write.add, true],
          [write.remove, false],
        ] as const) {
          for (const id of ids) {
            first(w.tags, id, { before: read.tags.includes(id), sent });
            w.tags[id].sent = sent;
          }
        }
      } else if (write.kind === 'custom_fields') {
        const slots: Array<[number, Slot]> = [
          ...write.set.map((f): [number, Slot] => [f.field, { attached: true, value: f.value }]),
          ...write.remove.map((id): [number, Slot] => [id, { attached: false }]),
        ];
        for (const [id, sent] of slots) {
          const before: Slot = readFields.has(id) ? { attached: true, value: readFields.get(id) } : { attached: false };
          first(w.fields, id, { before, sent });
          w.fields[id].sent = sent;
        }
      } else {
        for (const scalar of SCALARS) {
          if (!(scalar in write.patch)) continue;
          first<{ before: unknown; sent: unknown }>(w.scalars, scalar, {
            before: read[scalar],
            sent: write.patch[scalar],
          });
          w.scalars[scalar]!.sent = write.patch[scalar];
        }
        for (const list of LISTS) {
          const [kind, target] = list.split('.') as [PermissionKind, PermissionTarget];
          const sent = write.patch.set_permissions?.[kind]?.[target];
          if (!sent) continue;
          first(w.permissions, list, { before: read.permissions ? read.permissions[kind][target] : null, sent });
          w.permissions[list]!.sent = sent;
        }
      }
    });
    if (!wrote) continue;
    for (const rule of run.entry.rules) if (!w.rules.includes(rule)) w.rules.push(rule);
    byDoc.set(key, w);
  }
  return [...byDoc.values()];
}

/** `restore`: the field holds what the event sent, so it goes back; `as_before`: nothing to do; `edited`: changed since. */
export type Verdict = 'restore' | 'as_before' | 'edited' | 'unrecorded';

export interface FieldCheck {
  /** As plans name it: `title`, `tags`, `custom_fields`, `permissions`, … */
  field: ChangeField;
  /** The tag, custom field or permission list the check is about. */
  item?: number | PermissionList;
  verdict: Verdict;
}

/** The writes that give the document back what the event found, in the form a plan writes them. */
export interface Restoration {
  patch: DocumentPatch;
  tags: TagDelta | null;
  customFields: CustomFieldDelta | null;
  changed: ChangeField[];
  checks: FieldCheck[];
}

const sameSet = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x) => b.includes(x));

const slotOf = (doc: DmsDocument, id: number): Slot => {
  const slot = (doc.custom_fields ?? []).find((f) => f.field === id);
  return slot ? { attached: true, value: slot.value } : { attached: false };
};

/**
 * Two slots alike as Paperless stores them: money by amount and currency (a bare `39.95` is in the field's
 * default currency, so it equals `EUR39.95` there), a select by its option, anything else by value.
 */
export function sameSlot(field: DmsCustomField | undefined, a: Slot, b: Slot): boolean {
  if (!a.attached || !b.attached) return a.attached === b.attached;
  if (!field) return isDeepStrictEqual(a.value ?? null, b.value ?? null);
  return (
    sameWireValue(field, a.value ?? null, b.value ?? null) || sameWireValue(field, b.value ?? null, a.value ?? null)
  );
}

function verdict(now: boolean, asBefore: boolean): Verdict {
  return asBefore ? 'as_before' : now ? 'restore' : 'edited';
}

/**
 * Decides, field by field, what to restore on the document as the dms holds it now: a field goes back to what
 * the event found only while it still holds what the event sent, so a later edit by a person is never
 * overwritten. Tags and custom fields are decided one by one (a tag a person added stays).
 */
export function decideRestore(
  doc: DmsDocument,
  w: JobWrites,
  fieldById: (id: number) => DmsCustomField | undefined,
): Restoration {
  const out: Restoration = { patch: {}, tags: null, customFields: null, changed: [], checks: [] };
  const change = (field: ChangeField) => {
    if (!out.changed.includes(field)) out.changed.push(field);
  };

  for (const [key, { before, sent }] of Object.entries(w.scalars) as Array<
    [Scalar, { before: unknown; sent: unknown }]
  >) {
    const v = verdict(sameScalar(key, doc[key], sent), sameScalar(key, doc[key], before));
    out.checks.push({ field: key, verdict: v });
    if (v !== 'restore') continue;
    (out.patch as Record<string, unknown>)[key] = key === 'created' ? dateOnly(before as string | null) : before;
    change(key);
  }

  for (const [id, { before, sent }] of Object.entries(w.tags)) {
    const present = (doc.tags ?? []).includes(Number(id));
    const v = verdict(present === sent, present === before);
    out.checks.push({ field: 'tags', item: Number(id), verdict: v });
    if (v !== 'restore') continue;
    out.tags ??= { add: [], remove: [] };
    (before ? out.tags.add : out.tags.remove).push(Number(id));
    change('tags');
  }

  for (const [key, { before, sent }] of Object.entries(w.fields)) {
    const id = Number(key);
    const field = fieldById(id);
    const now = slotOf(doc, id);
    const v = verdict(sameSlot(field, now, sent), sameSlot(field, now, before));
    out.checks.push({ field: 'custom_fields', item: id, verdict: v });
    if (v !== 'restore') continue;
    out.customFields ??= { set: [], remove: [] };
    // Given back as Paperless had it (a field the event attached is detached again, not left empty).
    if (before.attached) out.customFields.set.push({ field: id, value: before.value });
    else out.customFields.remove.push(id);
    change('custom_fields');
  }

  for (const [list, { before, sent }] of Object.entries(w.permissions) as Array<
    [PermissionList, { before: number[] | null; sent: number[] }]
  >) {
    const [kind, target] = list.split('.') as [keyof DmsPermissions, PermissionTarget];
    const now = doc.permissions?.[kind][target];
    const v: Verdict =
      before === null || now === undefined ? 'unrecorded' : verdict(sameSet(now, sent), sameSet(now, before));
    out.checks.push({ field: 'permissions', item: list, verdict: v });
    if (v !== 'restore' || before === null) continue;
    const patch: DmsPermissionsPatch = (out.patch.set_permissions ??= {});
    (patch[kind] ??= {})[target] = before;
    change('permissions');
  }
  return out;
}

/** The document with a delta applied, as the dms would hold it after the write (for traces and reports). */
export function withDelta(doc: DmsDocument, delta: Pick<Restoration, 'patch' | 'tags' | 'customFields'>): DmsDocument {
  const { set_permissions: perms, ...scalars } = delta.patch;
  const next: DmsDocument = { ...doc, ...scalars };
  if (delta.tags) {
    const { add, remove } = delta.tags;
    next.tags = [...(doc.tags ?? []).filter((t) => !remove.includes(t)), ...add.filter((t) => !doc.tags.includes(t))];
  }
  if (delta.customFields) {
    const { set, remove } = delta.customFields;
    const kept = (doc.custom_fields ?? []).filter(
      (f) => !remove.includes(f.field) && !set.some((s) => s.field === f.field),
    );
    next.custom_fields = [...kept, ...set];
  }
  if (perms && doc.permissions) {
    next.permissions = {
      view: { ...doc.permissions.view, ...perms.view },
      change: { ...doc.permissions.change, ...perms.change },
    };
  }
  return next;
}

/** The values the event sent, as a delta (what the document held right after it). */
export function sentDelta(w: JobWrites): Pick<Restoration, 'patch' | 'tags' | 'customFields'> {
  const patch: DocumentPatch = {};
  for (const [key, { sent }] of Object.entries(w.scalars)) (patch as Record<string, unknown>)[key] = sent;
  for (const [list, { sent }] of Object.entries(w.permissions) as Array<[PermissionList, { sent: number[] }]>) {
    const [kind, target] = list.split('.') as [keyof DmsPermissions, PermissionTarget];
    ((patch.set_permissions ??= {})[kind] ??= {})[target] = sent;
  }
  const tags = Object.entries(w.tags);
  const fields = Object.entries(w.fields);
  return {
    patch,
    tags: tags.length
      ? {
          add: tags.filter(([, t]) => t.sent).map(([id]) => Number(id)),
          remove: tags.filter(([, t]) => !t.sent).map(([id]) => Number(id)),
        }
      : null,
    customFields: fields.length
      ? {
          set: fields.flatMap(([id, f]) => (f.sent.attached ? [{ field: Number(id), value: f.sent.value }] : [])),
          remove: fields.filter(([, f]) => !f.sent.attached).map(([id]) => Number(id)),
        }
      : null,
  };
}
