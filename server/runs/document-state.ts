import { createHash } from 'node:crypto';
import type { DmsDocument } from '../dms/types.js';

/**
 * A short digest of everything a person (or Paperless) can change on a document and a rule can read:
 * two fetches with the same digest show the same document. `modified` is left out (every save moves it,
 * the service's own included) and so are notes (adding one fires no webhook in Paperless).
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
  ];
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 22);
}
