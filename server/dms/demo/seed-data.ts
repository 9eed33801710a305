import correspondents from './seed/correspondents.json' with { type: 'json' };
import customFields from './seed/custom_fields.json' with { type: 'json' };
import documentTypes from './seed/document_types.json' with { type: 'json' };
import documents from './seed/documents.json' with { type: 'json' };
import storagePaths from './seed/storage_paths.json' with { type: 'json' };
import tags from './seed/tags.json' with { type: 'json' };
import type { ObjectKind, SimDocument, SimObject, SimVersion } from './sim-types.js';

// Copies of ../shared/dms/fixtures (Paperless-ngx 3.0.5), bundled so the packaged app and `npm start` have them.

const COMPUTED_OBJECT_KEYS = ['document_count', 'user_can_change', 'children', 'last_correspondence'];

function objects(list: Array<Record<string, unknown>>): SimObject[] {
  return list.map((o) => {
    const copy = structuredClone(o);
    for (const key of COMPUTED_OBJECT_KEYS) delete copy[key];
    return copy as SimObject;
  });
}

/** The fixture vocabulary, freshly copied (each simulator mutates its own). */
export function seedObjects(): Record<ObjectKind, SimObject[]> {
  return {
    tags: objects(tags),
    correspondents: objects(correspondents),
    document_types: objects(documentTypes),
    storage_paths: objects(storagePaths),
    custom_fields: objects(customFields),
  };
}

/** The fixture documents (ids 1–10, 12, 13), freshly copied. */
export function seedDocuments(): SimDocument[] {
  return documents.map((raw) => {
    const d = structuredClone(raw) as Record<string, unknown>;
    return {
      id: d.id as number,
      correspondent: d.correspondent as number | null,
      document_type: d.document_type as number | null,
      storage_path: d.storage_path as number | null,
      title: d.title as string,
      content: d.content as string,
      tags: d.tags as number[],
      created: d.created as string,
      modified: d.modified as string,
      added: d.added as string,
      archive_serial_number: d.archive_serial_number as number | null,
      original_file_name: d.original_file_name as string | null,
      has_archive: d.archived_file_name !== null,
      owner: d.owner as number | null,
      notes: d.notes as SimDocument['notes'],
      custom_fields: d.custom_fields as SimDocument['custom_fields'],
      page_count: d.page_count as number | null,
      mime_type: d.mime_type as string,
      versions: d.versions as SimVersion[],
    };
  });
}

/** Ids that exist in the fixtures but never answer: 11 is in the trash (holding ASN 104), 14 is a file version. */
export const SEED_HIDDEN_IDS = [11, 14];
export const SEED_TRASHED_ASNS = [104];
