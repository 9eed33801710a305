import { createHash } from 'node:crypto';
import type { DmsCustomFieldValue, DmsDocument, DmsNote, DmsPermissions, DocumentPatch } from '../../dms/types.js';

/** One request the service sends to write a document, with the values it sends. */
export type JournalWrite =
  | { kind: 'patch'; patch: DocumentPatch }
  | { kind: 'tags'; add: number[]; remove: number[] }
  | { kind: 'custom_fields'; set: DmsCustomFieldValue[]; remove: number[] }
  | { kind: 'note'; text: string }
  | { kind: 'trash' };

/** The document's writable fields as the run read them: what recovery compares with, and what undo restores. */
export interface ReadValues {
  modified: string;
  title: string;
  correspondent: number | null;
  document_type: number | null;
  storage_path: number | null;
  created: string;
  archive_serial_number: number | null;
  owner: number | null;
  tags: number[];
  custom_fields: Array<[field: number, value: unknown]>;
  notes: number[];
  /** A digest of the text: a person's edit of it is a change the rules must see. */
  content: string;
  /** When the run read them (`full_perms`): what undo gives back after a permission change. */
  permissions?: DmsPermissions;
}

/**
 * A run's writes to one document, appended and made durable before the first of them is sent: the dms (its
 * key), the document, the event (job, delivery, catch-up) and rules that planned it, what it read, and every
 * request with its values.
 */
export interface RunEntry {
  t: 'run';
  run: string;
  dms: string;
  doc: number;
  event: number | null;
  source: string;
  rules: string[];
  /** The document's `added` time when the run was an `added` arrival: the journal then says that arrival was handled. */
  added?: string;
  at: number;
  read: ReadValues;
  writes: JournalWrite[];
}

/** How one request of a run ended; `reconciled` when a restart found it out from the document itself. */
export interface OutcomeEntry {
  t: 'out';
  run: string;
  i: number;
  ok: boolean;
  error?: string;
  /** A note's id as Paperless answered it: its audit entry names this id. */
  note?: number;
  reconciled?: true;
}

export type RunStatus = 'applied' | 'partial' | 'not_applied';

/** The run is over: whether everything it planned reached the dms. */
export interface EndEntry {
  t: 'end';
  run: string;
  status: RunStatus;
  reconciled?: true;
}

export type JournalEntry = RunEntry | OutcomeEntry | EndEntry;

/** A run's writes as the journal knows them: what was planned, how each request ended, and the end. */
export interface JournalRun {
  entry: RunEntry;
  outcomes: Array<OutcomeEntry | undefined>;
  end: EndEntry | null;
}

export function readValuesOf(doc: DmsDocument): ReadValues {
  return {
    modified: doc.modified,
    title: doc.title,
    correspondent: doc.correspondent,
    document_type: doc.document_type,
    storage_path: doc.storage_path,
    created: doc.created,
    archive_serial_number: doc.archive_serial_number,
    owner: doc.owner,
    tags: [...(doc.tags ?? [])].sort((a, b) => a - b),
    custom_fields: (doc.custom_fields ?? []).map((f) => [f.field, f.value]),
    notes: (doc.notes ?? []).map((n) => n.id),
    content: contentDigest(doc.content),
    ...(doc.permissions ? { permissions: copyPermissions(doc.permissions) } : {}),
  };
}

const copyPermissions = (p: DmsPermissions): DmsPermissions => ({
  view: { users: [...p.view.users], groups: [...p.view.groups] },
  change: { users: [...p.change.users], groups: [...p.change.groups] },
});

export function isJournalEntry(value: unknown): value is JournalEntry {
  const e = value as JournalEntry;
  if (typeof e !== 'object' || e === null || typeof e.run !== 'string') return false;
  if (e.t === 'run') return typeof e.doc === 'number' && Array.isArray(e.writes) && typeof e.read === 'object';
  if (e.t === 'out') return typeof e.i === 'number' && typeof e.ok === 'boolean';
  return e.t === 'end' && typeof e.status === 'string';
}

export function contentDigest(text: string | undefined): string {
  return createHash('sha256')
    .update(text ?? '')
    .digest('base64url')
    .slice(0, 16);
}

/** The fields one request writes, as plans and traces name them. */
export const fieldsOf = (write: JournalWrite): string[] =>
  write.kind === 'patch'
    ? Object.keys(write.patch).map((key) => (key === 'set_permissions' ? 'permissions' : key))
    : [write.kind === 'note' ? 'notes' : write.kind];

/** The id Paperless gave a note of this text, among the notes it answered, that was not there before: its audit entry names it. */
export function newNoteId(notes: readonly DmsNote[], before: ReadonlySet<number>, text: string): number | undefined {
  const ids = notes.filter((n) => !before.has(n.id) && n.note === text).map((n) => n.id);
  return ids.length > 0 ? Math.max(...ids) : undefined;
}
