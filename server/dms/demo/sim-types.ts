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
  /** Size in bytes of the original file a download serves (tests of size limits); default a small generated file. */
  file_size?: number;
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

export const OBJECT_KINDS: ObjectKind[] = [
  'tags',
  'correspondents',
  'document_types',
  'storage_paths',
  'custom_fields',
];

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

/** A Django `auth.User` as the simulator keeps it; `UserSerializer` renders it (routes-accounts.ts). */
export interface SimAccount {
  id: number;
  username: string;
  email: string;
  /** The stored password hash: the API shows only as many `*` as it has characters (at least 10). */
  password: string;
  first_name: string;
  last_name: string;
  date_joined: string;
  is_staff: boolean;
  is_active: boolean;
  is_superuser: boolean;
  /** Group ids. */
  groups: number[];
  /** Model permission codenames given to the user directly, e.g. `view_document`. */
  user_permissions: string[];
}

/** A Django `auth.Group`: model permission codenames its members inherit. */
export interface SimGroup {
  id: number;
  name: string;
  permissions: string[];
}

/** The users and groups holding one object permission (django-guardian rows). */
export interface GrantTargets {
  users: number[];
  groups: number[];
}

/** A document's object permissions, in the shape Paperless renders as `permissions`. */
export interface ObjectGrants {
  view: GrantTargets;
  change: GrantTargets;
}
