import type { DmsDocument, DocumentPatch } from '../../dms/types.js';
import type { JournalWrite, ReadValues } from './journal-records.js';

/** A value as the dms stores it, for comparison: null and undefined alike, numbers and strings by text. */
const same = (a: unknown, b: unknown) =>
  JSON.stringify(a ?? null) === JSON.stringify(b ?? null) || String(a) === String(b);
const day = (value: unknown) => String(value ?? '').slice(0, 10);

type PatchKey = keyof DocumentPatch;
const patchValue = (doc: DmsDocument | ReadValues, key: PatchKey): unknown =>
  key === 'created' ? day(doc.created) : (doc as unknown as Record<string, unknown>)[key];
const patchTarget = (patch: DocumentPatch, key: PatchKey): unknown =>
  key === 'created' ? day(patch.created) : patch[key];
/** Keys whose stored value a plain read shows (permissions need `full_perms`; tags and fields go by bulk edit). */
const COMPARABLE: PatchKey[] = [
  'title',
  'correspondent',
  'document_type',
  'storage_path',
  'created',
  'archive_serial_number',
  'owner',
];

/**
 * Whether one journaled request is in the document as the dms holds it now: a restart asks this of a request
 * whose answer a kill cut off (Paperless may have applied it). `doc` null: the document is gone (or in the trash).
 * Null when the document cannot tell (only permissions were sent).
 */
export function isApplied(write: JournalWrite, doc: DmsDocument | null, read: ReadValues): boolean | null {
  if (write.kind === 'trash') return doc === null;
  if (doc === null) return null;
  switch (write.kind) {
    case 'patch': {
      const keys = COMPARABLE.filter((key) => key in write.patch);
      if (keys.length === 0) return null;
      return keys.every((key) => same(patchValue(doc, key), patchTarget(write.patch, key)));
    }
    case 'tags': {
      const tags = new Set(doc.tags ?? []);
      return write.add.every((t) => tags.has(t)) && write.remove.every((t) => !tags.has(t));
    }
    case 'custom_fields': {
      const values = new Map((doc.custom_fields ?? []).map((f) => [f.field, f.value]));
      return (
        write.set.every((f) => values.has(f.field) && same(values.get(f.field), f.value)) &&
        write.remove.every((field) => !values.has(field))
      );
    }
    case 'note':
      return (doc.notes ?? []).some((n) => !read.notes.includes(n.id) && n.note === write.text);
  }
}

/**
 * Whether the fields a request would change still hold what the run read: only then is a request a kill kept
 * from being sent sent now (a person who changed the field meanwhile wins, and their change runs the rules).
 */
export function untouchedSinceRead(write: JournalWrite, doc: DmsDocument, read: ReadValues): boolean {
  switch (write.kind) {
    case 'patch':
      return COMPARABLE.filter((key) => key in write.patch).every((key) =>
        same(patchValue(doc, key), patchValue(read, key)),
      );
    case 'tags': {
      const now = new Set(doc.tags ?? []);
      return [...write.add, ...write.remove].every((t) => now.has(t) === read.tags.includes(t));
    }
    case 'custom_fields': {
      const before = new Map(read.custom_fields);
      const now = new Map((doc.custom_fields ?? []).map((f) => [f.field, f.value]));
      return [...write.set.map((f) => f.field), ...write.remove].every(
        (field) => now.has(field) === before.has(field) && same(now.get(field), before.get(field)),
      );
    }
    case 'note':
    case 'trash':
      return true;
  }
}

/** The note Paperless added for this text (the newest not there at the read): its audit entry names this id. */
export function addedNoteId(doc: Pick<DmsDocument, 'notes'>, read: ReadValues, text: string): number | undefined {
  const added = (doc.notes ?? []).filter((n) => !read.notes.includes(n.id) && n.note === text);
  return added.length > 0 ? Math.max(...added.map((n) => n.id)) : undefined;
}
