import { createHash } from 'node:crypto';
import type { DmsDocument } from '../../dms/types.js';
import { contentDigest } from '../journal/journal-records.js';

/**
 * A short digest of everything a person (or Paperless) can change on a document and a rule can read:
 * two fetches with the same digest show the same document. `modified` is left out (every save moves it,
 * the service's own included). Notes and permissions are in: a person's note fires no webhook but moves
 * `modified`, so catch-up finds it, and rules read both. A document read without permissions (no
 * `full_perms`) has a digest of its own, so it is never taken for a state read with them.
 */
export function documentState(doc: DmsDocument): string {
  const fields = [...(doc.custom_fields ?? [])].sort((a, b) => a.field - b.field).map((f) => [f.field, f.value]);
  const parts = [
    doc.title,
    doc.content,
    doc.correspondent,
    doc.document_type,
    doc.storage_path,
    [...(doc.tags ?? [])].sort((a, b) => a - b),
    doc.created,
    doc.archive_serial_number,
    doc.owner,
    fields,
    (doc.notes ?? []).map((n) => n.id).sort((a, b) => a - b),
    doc.permissions
      ? (['view', 'change'] as const).map((k) => [
          [...doc.permissions![k].users].sort(),
          [...doc.permissions![k].groups].sort(),
        ])
      : 'unread',
  ];
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 22);
}

/** What the service meant to change in one write: anything else that differs afterwards was someone else. */
export interface WriteExpectation {
  /** The document as the write was planned on (the rules' read, or the fresh re-read it was rebased on). */
  before: DmsDocument;
  /** Fields the write may change. */
  fields: readonly string[];
}

const sortedIds = (ids: readonly number[] | undefined) => JSON.stringify([...(ids ?? [])].sort((a, b) => a - b));
// Every field a rule can read: with the audit log off this comparison alone tells a person's change from the service's.
const CHECKED: Record<string, (doc: DmsDocument) => unknown> = {
  title: (d) => d.title,
  content: (d) => contentDigest(d.content),
  correspondent: (d) => d.correspondent,
  document_type: (d) => d.document_type,
  storage_path: (d) => d.storage_path,
  created: (d) => (d.created ?? '').slice(0, 10),
  archive_serial_number: (d) => d.archive_serial_number,
  owner: (d) => d.owner,
  tags: (d) => sortedIds(d.tags),
  custom_fields: (d) =>
    JSON.stringify([...(d.custom_fields ?? [])].sort((a, b) => a.field - b.field).map((f) => [f.field, f.value])),
  notes: (d) => sortedIds((d.notes ?? []).map((n) => n.id)),
  original_file_name: (d) => d.original_file_name ?? null,
  mime_type: (d) => d.mime_type ?? null,
  page_count: (d) => d.page_count ?? null,
};

/** Permissions as sets; `undefined` for a document read without them (nothing to compare then). */
const permissionsOf = (d: DmsDocument): string | undefined =>
  d.permissions
    ? JSON.stringify(
        (['view', 'change'] as const).map((k) => [
          sortedIds(d.permissions![k].users),
          sortedIds(d.permissions![k].groups),
        ]),
      )
    : undefined;

/**
 * The fields other than the written ones that differ between the document the write was planned on and
 * the document the dms holds after it. Paperless answers a PATCH with the whole stored document, read
 * after the save, so a person's change made during the write is in that answer: it must not be taken for
 * the service's own state, or the person's webhook would be skipped as an echo.
 */
export function changedBesides(expected: WriteExpectation, after: DmsDocument): string[] {
  const changed = Object.entries(CHECKED)
    .filter(([field, read]) => !expected.fields.includes(field) && read(expected.before) !== read(after))
    .map(([field]) => field);
  const [was, now] = [permissionsOf(expected.before), permissionsOf(after)];
  if (!expected.fields.includes('permissions') && was !== undefined && now !== undefined && was !== now)
    changed.push('permissions');
  return changed;
}
