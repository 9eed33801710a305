import { isDeepStrictEqual } from 'node:util';
import { DmsError } from '../../dms/dms-errors.js';
import type { DmsDocument } from '../../dms/types.js';
import { SCALARS, sameScalar } from '../pipeline/replan-fresh.js';
import { contentDigest, readValuesOf, type JournalWrite, type ReadValues } from './journal-records.js';

type Scalar = (typeof SCALARS)[number];
/** The scalar keys of a PATCH whose stored value a plain read shows (permissions need `full_perms`). */
const scalarsOf = (write: JournalWrite & { kind: 'patch' }): Scalar[] => SCALARS.filter((key) => key in write.patch);
const fieldValues = (doc: Pick<DmsDocument, 'custom_fields'>) =>
  new Map((doc.custom_fields ?? []).map((f) => [f.field, f.value]));
const sameValue = (a: unknown, b: unknown) => isDeepStrictEqual(a ?? null, b ?? null) || String(a) === String(b);

/**
 * A failed request Paperless may still have applied: no answer came (a timeout, a dropped connection), or a server
 * error did, which can come after the save. Its outcome is not recorded; its run stays unfinished, like one a kill
 * cut off, and the next arrival of the document reconciles it against the document before anything runs again.
 * Only an answer that says no (a 4xx) records it as not applied.
 */
export function answerUnknown(err: unknown): boolean {
  return err instanceof DmsError && (err.dmsStatus === null || err.dmsStatus >= 500);
}

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
      const keys = scalarsOf(write);
      if (keys.length === 0) return null;
      return keys.every((key) => sameScalar(key, doc[key], write.patch[key]));
    }
    case 'tags': {
      const tags = new Set(doc.tags ?? []);
      return write.add.every((t) => tags.has(t)) && write.remove.every((t) => !tags.has(t));
    }
    case 'custom_fields': {
      const values = fieldValues(doc);
      return (
        write.set.every((f) => values.has(f.field) && sameValue(values.get(f.field), f.value)) &&
        write.remove.every((field) => !values.has(field))
      );
    }
    case 'note':
      return appliedNote(write, doc, read) !== null;
  }
}

/** The note this request added, if the document has it: a new note (not in the run's read) of that text. */
export function appliedNote(
  write: JournalWrite & { kind: 'note' },
  doc: DmsDocument | null,
  read: ReadValues,
): number | null {
  return (doc?.notes ?? []).find((n) => !read.notes.includes(n.id) && n.note === write.text)?.id ?? null;
}

/**
 * Whether the fields a request would change still hold what the run read: only then is a request a kill kept
 * from being sent sent now (a person who changed the field meanwhile wins, and their change runs the rules).
 */
export function untouchedSinceRead(write: JournalWrite, doc: DmsDocument, read: ReadValues): boolean {
  switch (write.kind) {
    case 'patch':
      return scalarsOf(write).every((key) => sameScalar(key, doc[key], read[key]));
    case 'tags': {
      const now = new Set(doc.tags ?? []);
      return [...write.add, ...write.remove].every((t) => now.has(t) === read.tags.includes(t));
    }
    case 'custom_fields': {
      const before = new Map(read.custom_fields);
      const now = fieldValues(doc);
      return [...write.set.map((f) => f.field), ...write.remove].every(
        (field) => now.has(field) === before.has(field) && sameValue(now.get(field), before.get(field)),
      );
    }
    case 'note':
    case 'trash':
      return true;
  }
}

/**
 * True when nothing the run did not write changed since its read (text included): nobody else changed the document.
 * Tags and custom fields count one by one: a person's tag beside the service's tag write is a change of theirs,
 * not part of the write. Paperless adds a written tag's ancestors (the plan names them) and takes a removed tag's
 * descendants with it, so a tag gone is the run's only when the run removed some.
 */
export function unchangedBesides(doc: DmsDocument, read: ReadValues, writes: readonly JournalWrite[]): boolean {
  // Permissions are in a read only when it asked for them: a plain read cannot say they changed.
  const written = new Set<string>(['modified', 'content', 'permissions', 'tags', 'custom_fields']);
  for (const write of writes) {
    if (write.kind === 'note') written.add('notes');
    if (write.kind === 'patch') for (const key of Object.keys(write.patch)) written.add(key);
  }
  if (contentDigest(doc.content) !== read.content) return false;
  const now = readValuesOf(doc);
  const patchedTags = writes.some((w) => w.kind === 'patch' && 'tags' in w.patch);
  const patchedFields = writes.some((w) => w.kind === 'patch' && 'custom_fields' in w.patch);
  return (
    (patchedTags || tagsUnchangedBesides(now.tags, read.tags, writes)) &&
    (patchedFields || fieldsUnchangedBesides(now.custom_fields, read.custom_fields, writes)) &&
    (Object.keys(read) as Array<keyof ReadValues>)
      .filter((key) => !written.has(key))
      .every((key) => isDeepStrictEqual(now[key], read[key]))
  );
}

function tagsUnchangedBesides(now: number[], read: number[], writes: readonly JournalWrite[]): boolean {
  const tagWrites = writes.filter((w) => w.kind === 'tags');
  const named = new Set(tagWrites.flatMap((w) => [...w.add, ...w.remove]));
  const removedSome = tagWrites.some((w) => w.remove.length > 0);
  const [before, after] = [new Set(read), new Set(now)];
  for (const tag of new Set([...before, ...after])) {
    if (named.has(tag) || before.has(tag) === after.has(tag)) continue;
    if (!after.has(tag) && removedSome) continue;
    return false;
  }
  return true;
}

function fieldsUnchangedBesides(
  now: ReadValues['custom_fields'],
  read: ReadValues['custom_fields'],
  writes: readonly JournalWrite[],
): boolean {
  const named = new Set(
    writes.flatMap((w) => (w.kind === 'custom_fields' ? [...w.set.map((f) => f.field), ...w.remove] : [])),
  );
  const [before, after] = [new Map(read), new Map(now)];
  for (const field of new Set([...before.keys(), ...after.keys()])) {
    if (named.has(field)) continue;
    if (before.has(field) !== after.has(field) || !sameValue(before.get(field), after.get(field))) return false;
  }
  return true;
}

/** The document is exactly as this run left it: every request in it, and nothing else changed since its read. */
export function leftAsWritten(doc: DmsDocument, read: ReadValues, writes: readonly JournalWrite[]): boolean {
  return writes.every((write) => isApplied(write, doc, read) !== false) && unchangedBesides(doc, read, writes);
}
