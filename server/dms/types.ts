/**
 * The dms boundary: Paperless-ngx objects in their wire shapes (ids, not names) and the client interface.
 * Only `server/dms/` talks to the dms; everything else depends on this file.
 */

export interface DmsNote {
  id: number;
  note: string;
  created: string;
  user: { id: number; username: string; first_name?: string; last_name?: string } | null;
}

export interface DmsCustomFieldValue {
  field: number;
  value: unknown;
}

/** A document as `GET /api/documents/{id}/` returns it (only the fields the service uses are typed). */
export interface DmsDocument {
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
  owner: number | null;
  notes: DmsNote[];
  custom_fields: DmsCustomFieldValue[];
  page_count: number | null;
  mime_type: string;
  /** Only when read with `full_perms=true` (and in PATCH answers). */
  permissions?: DmsPermissions;
  [key: string]: unknown;
}

/** Object permissions by user and group id, as `full_perms=true` shows them and `set_permissions` takes them. */
export interface DmsPermissions {
  view: { users: number[]; groups: number[] };
  change: { users: number[]; groups: number[] };
}

/** `set_permissions` in a PATCH: each list sent replaces that list; lists left out stay as they are. */
export type DmsPermissionsPatch = Partial<Record<keyof DmsPermissions, Partial<DmsPermissions['view']>>>;

export interface DmsNamedObject {
  id: number;
  name: string;
  owner?: number | null;
}

export interface DmsTag extends DmsNamedObject {
  is_inbox_tag: boolean;
  parent: number | null;
  color?: string;
}

export type CustomFieldDataType =
  'string' | 'longtext' | 'url' | 'date' | 'boolean' | 'integer' | 'float' | 'monetary' | 'documentlink' | 'select';

export interface DmsCustomField {
  id: number;
  name: string;
  data_type: CustomFieldDataType;
  extra_data: {
    select_options?: Array<{ id: string; label: string }>;
    default_currency?: string | null;
  };
}

export interface DmsVocabulary {
  tags: DmsTag[];
  correspondents: DmsNamedObject[];
  document_types: DmsNamedObject[];
  storage_paths: DmsNamedObject[];
  custom_fields: DmsCustomField[];
  /** Users by username (`name` holds the username); absent unless asked for (`principals: true`). */
  users?: DmsNamedObject[];
  /** Absent unless asked for, like `users`. */
  groups?: DmsNamedObject[];
  /** Kinds the token may not list (Paperless answered 403); their lists above are empty. Absent = none. */
  forbidden?: DmsForbiddenKind[];
}

export type DmsVocabularyKind =
  'tags' | 'correspondents' | 'document_types' | 'storage_paths' | 'custom_fields' | 'users' | 'groups';

/** A vocabulary kind the token's user may not view, and the Paperless permission it lacks (e.g. `view_customfield`). */
export interface DmsForbiddenKind {
  kind: DmsVocabularyKind;
  permission: string;
}

/** Vocabulary kinds the service may create on demand (`create_missing: true`). */
export type CreatableKind = 'tags' | 'correspondents' | 'document_types' | 'storage_paths';

/** Fields `PATCH /api/documents/{id}/` accepts, in wire form. `tags`/`custom_fields` replace the whole set (the service never sends them). */
export interface DocumentPatch {
  title?: string;
  correspondent?: number | null;
  document_type?: number | null;
  storage_path?: number | null;
  tags?: number[];
  created?: string;
  archive_serial_number?: number | null;
  custom_fields?: DmsCustomFieldValue[];
  owner?: number | null;
  set_permissions?: DmsPermissionsPatch;
}

/** The fields of a document that the service writes (and so compares before writing). */
export const WRITE_STATE_FIELDS = [
  'id',
  'title',
  'correspondent',
  'document_type',
  'storage_path',
  'tags',
  'created',
  'archive_serial_number',
  'custom_fields',
  'notes',
  'owner',
  'permissions',
] as const;
export type DocumentWriteState = Pick<DmsDocument, (typeof WRITE_STATE_FIELDS)[number]>;

export interface DocumentQuery {
  /** Paperless filter parameters (§4.4), whitelisted by the client: an unknown name is an error, not a silent widening. */
  filters?: Record<string, string>;
  /** `fields=` to keep responses small. */
  fields?: string[];
  /**
   * Documents per request; none: the read plan's page size, smaller for a small read (read-plan.ts).
   * The memory budget may lower either.
   */
  pageSize?: number;
  truncateContent?: boolean;
  /** `full_perms=true`: each document's `permissions` (more work for the dms; only when a rule needs them). */
  fullPerms?: boolean;
  /**
   * Pages requested before the consumer asks for them, so its work overlaps the next fetches (one more waits in the
   * dms's queue). At most the read plan's dms workers (SVC_DMS_WORKERS). Default 0.
   */
  ahead?: number;
}

/** One request: filters (whitelisted as for `pages`), a Paperless `ordering`, the first `pageSize` documents. */
export interface FindDocumentsQuery {
  filters: Record<string, string>;
  ordering: string;
  pageSize: number;
  fields: string[];
}

export interface DocumentPage {
  /** Total matching documents (the dms's `count`). */
  count: number;
  documents: DmsDocument[];
}

export type BulkEditMethod =
  | 'set_correspondent'
  | 'set_document_type'
  | 'set_storage_path'
  | 'add_tag'
  | 'remove_tag'
  | 'modify_tags'
  | 'modify_custom_fields';

export interface DmsPing {
  ok: boolean;
  /** `X-Version` of the dms, when it answered. */
  version?: string;
  error?: string;
  /** The API version the client speaks with this dms (9 or 10). */
  apiVersion?: number;
  /** `X-Api-Version`: the newest API version the dms allows. */
  serverApiVersion?: number;
  /** The Paperless-ngx releases the client supports, e.g. "2.16 to 3.0.x". */
  supportedVersions?: string;
  /** Vocabulary kinds the token may not view (empty when it sees everything); only when the dms answered. */
  forbidden?: DmsForbiddenKind[];
  /** The release group whose behaviour the client follows, e.g. "2.16–2.18" (from `X-Version`). */
  releaseGroup?: string;
  /** What the service does differently for that release, one sentence each. */
  releaseDifferences?: string[];
}

/** One entry of Paperless's audit log for a document (`GET /api/documents/{id}/history/`). */
export interface DmsHistoryEntry {
  id: number;
  /** ISO datetime with microseconds, e.g. `2026-11-24T10:00:00.123456Z`. */
  timestamp: string;
  /** `create`, `update`, `delete` (auditlog's action names). */
  action: string;
  /**
   * As logged: a save gives `{field: [old, new]}` as strings (`"None"` for none), tags `{tags: {type: "m2m",
   * operation: "add"|"delete", objects: [tag names]}}`, a bulk edit `{field: [old pk, new pk or pk list]}`, a note
   * `{"Note Added": ["None", note id]}`, a custom-field instance `{custom_fields: {type, field, value}}`.
   */
  changes: Record<string, unknown>;
  /** The Paperless user the change was made as; null for Paperless's own work (workflows run by Celery, consumption). */
  actor: { id: number; username: string } | null;
}

export interface DmsHistory {
  /** Newest first, at most the client's cap. */
  entries: DmsHistoryEntry[];
  /** Older entries were left out (the document's history is longer than the cap). */
  truncated: boolean;
}

/** The Paperless user the service's token belongs to, and what it means for reading the audit log. */
export interface DmsServiceUser {
  id: number;
  username: string;
  superuser: boolean;
  /** `settings.auditlog_enabled` of `/api/ui_settings/` (null when the answer does not say). */
  auditLogEnabled: boolean | null;
  /** A superuser, or holds `view_logentry` (it must also own a document, or the document be unowned). */
  mayReadHistory: boolean;
}

/** A document's file as the dms served it. */
export interface DmsFile {
  /** From Content-Disposition (Paperless's public name, e.g. "2026-03-01 Stadtwerke Strom.pdf"). */
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface DmsClient {
  /** The base URL the client talks to (no trailing slash). */
  readonly url: string;
  ping(): Promise<DmsPing>;
  /** Throws DmsNotFoundError for a missing document, DmsError for everything else that fails. */
  getDocument(id: number): Promise<DmsDocument>;
  /**
   * Streams the matching documents page by page in id order, holding no more than the pages asked for ahead
   * (`DocumentQuery.ahead`) and the one handed out; changes made while streaming never make it skip a document that
   * matched at the start (document-stream.ts).
   */
  pages(query?: DocumentQuery): AsyncGenerator<DocumentPage>;
  /**
   * One page of matching documents in the dms's own `ordering` (e.g. `-archive_serial_number`) and the total count:
   * how queries over other documents are answered, by the dms's filters, never by reading the archive.
   */
  findDocuments(query: FindDocumentsQuery): Promise<DocumentPage>;
  /**
   * Only the fields a write depends on (`fields=`, so no content travels): what the service re-reads just before
   * writing, to notice a person's edit made since its first read.
   */
  getWriteState(id: number): Promise<DocumentWriteState>;
  /** The same for many documents in as few requests as `id__in` allows; documents gone from the dms are absent. */
  getWriteStates(ids: number[]): Promise<DocumentWriteState[]>;
  /** Whole documents by id (as a list page shows them), one request per 500 ids; documents gone are absent. */
  getDocuments(ids: number[]): Promise<DmsDocument[]>;
  updateDocument(id: number, patch: DocumentPatch): Promise<DmsDocument>;
  bulkEdit(documents: number[], method: BulkEditMethod, parameters: Record<string, unknown>): Promise<void>;
  addNote(id: number, note: string): Promise<DmsNote[]>;
  /**
   * The document's file (`/download/`): the archived PDF, or the original with `original: true` (Paperless serves
   * the original when there is no archive version). More than `maxBytes` is not read: DmsFileTooLargeError.
   */
  downloadDocument(id: number, options: { original: boolean; maxBytes: number }): Promise<DmsFile>;
  /** Moves a document to the dms's trash (Paperless keeps it there, restorable, until the trash is emptied). */
  trashDocument(id: number): Promise<void>;
  /** Brings documents back from the trash, as they were. */
  restoreFromTrash(ids: number[]): Promise<void>;
  /**
   * Paperless's audit log for the document, newest first and capped. Throws DmsAuditLogOffError (audit log off,
   * 400), DmsHistoryForbiddenError (403: no `view_logentry`, or the document is someone else's), DmsNotFoundError.
   */
  documentHistory(id: number): Promise<DmsHistory>;
  /** The Paperless user the token belongs to (`/api/ui_settings/`), so the service can tell its own changes from a person's. */
  serviceUser(): Promise<DmsServiceUser>;
  /**
   * Cached; `refresh` refetches. Changes made through this client refresh it too. Users and groups are listed
   * only with `principals: true` (rules that name owners or permissions need them; most runs do not).
   * `fetchedSince` (ms since the epoch): the cached copy serves only when it was asked for at or after then.
   */
  vocabulary(options?: { refresh?: boolean; principals?: boolean; fetchedSince?: number }): Promise<DmsVocabulary>;
  /** Creates an unowned object with matching_algorithm 0 (so Paperless does not start auto-assigning it). */
  /** `path` is the Paperless path template a new storage path needs (Paperless refuses one without). */
  createObject(kind: CreatableKind, name: string, path?: string): Promise<DmsNamedObject>;
  close(): Promise<void>;
}
