import type { DmsNote } from '../types.js';

/** A file version entry as Paperless lists it in `versions`. */
export interface SimVersion {
  id: number;
  added: string;
  version_label: string | null;
  checksum: string;
  is_root: boolean;
}

/** A document as the simulator keeps it; derived keys (counts, permissions, file names) are computed on output. */
export interface SimDocument {
  id: number;
  correspondent: number | null;
  document_type: number | null;
  storage_path: number | null;
  title: string;
  content: string;
  tags: number[];
  created: string;
  modified: string;
  added: string;
  archive_serial_number: number | null;
  original_file_name: string | null;
  /** Whether an archive PDF exists (then `archived_file_name` is derived from date, correspondent and title). */
  has_archive: boolean;
  owner: number | null;
  notes: DmsNote[];
  custom_fields: Array<{ value: unknown; field: number }>;
  page_count: number | null;
  mime_type: string;
  /** Explicit versions (fixtures); null = one root version derived from the id. */
  versions: SimVersion[] | null;
}

/** Tags, correspondents, document types and storage paths: the wire object minus the computed keys. */
export interface SimObject {
  id: number;
  name: string;
  owner?: number | null;
  [key: string]: unknown;
}

export type ObjectKind = 'tags' | 'correspondents' | 'document_types' | 'storage_paths' | 'custom_fields';

export const OBJECT_KINDS: ObjectKind[] = ['tags', 'correspondents', 'document_types', 'storage_paths', 'custom_fields'];

/** The model name Paperless uses in "No X matches the given query." */
export const MODEL_NAMES: Record<ObjectKind, string> = {
  tags: 'Tag',
  correspondents: 'Correspondent',
  document_types: 'DocumentType',
  storage_paths: 'StoragePath',
  custom_fields: 'CustomField',
};

/** The calling user: the fixtures' superuser anna (id 3). */
export const SIM_USER = { id: 3, username: 'anna', first_name: 'Anna', last_name: 'Berger' };
