import type { SimDocument } from './sim-types.js';

// Paperless's audit log (django-auditlog, on by default: `AUDIT_LOG_ENABLED`), as the simulator keeps it.
// `Document` is registered with `m2m_fields={"tags"}` and `exclude_fields=["modified"]` (documents/models.py), so a
// save logs the changed fields as strings, `tags` as separate m2m entries, and never `modified`. Custom-field
// instances, notes and bulk edits log their own entries; object permissions (django-guardian) log nothing.

export type SimLogAction = 'create' | 'update' | 'delete';

/** One `auditlog.LogEntry`: about a document, or about one of its custom-field instances. */
export interface SimLogEntry {
  id: number;
  /** ISO datetime of the entry (from the store's clock). */
  timestamp: string;
  action: SimLogAction;
  /** The document the entry is about, or the custom-field instance (`instance`) attached to it. */
  document: number;
  instance: number | null;
  changes: Record<string, unknown>;
  /** `object_repr`: `str(instance)`, which the history view parses for custom-field entries. */
  repr: string;
  /** The user id the request ran as; null for work Paperless does on its own (Celery workflows, consumption). */
  actor: number | null;
  /** Kept by Paperless (bulk edits set `reason`) but not part of the history answer. */
  additional_data: Record<string, unknown> | null;
}

export interface SimAuditLog {
  /** `PAPERLESS_AUDIT_LOG_ENABLED`; off → nothing is logged and the history view answers 400. */
  enabled: boolean;
  readonly entries: SimLogEntry[];
  add(entry: Omit<SimLogEntry, 'id'>): void;
  /** The pk of the custom-field instance attaching `field` to the document (a new one when it was detached). */
  instanceId(document: number, field: number): number;
  /** The instance is deleted: its entries stay in the log but no longer belong to any document's history. */
  dropInstance(document: number, field: number): void;
}

export function createAuditLog(): SimAuditLog {
  const entries: SimLogEntry[] = [];
  const instances = new Map<string, number>();
  let lastEntry = 0;
  let lastInstance = 0;
  const key = (document: number, field: number) => `${document}:${field}`;
  return {
    enabled: true,
    entries,
    add(entry) {
      entries.push({ id: ++lastEntry, ...entry });
    },
    instanceId(document, field) {
      let id = instances.get(key(document, field));
      if (id === undefined) instances.set(key(document, field), (id = ++lastInstance));
      return id;
    },
    dropInstance(document, field) {
      instances.delete(key(document, field));
    },
  };
}

/** Python's `str()` of a stored value, as auditlog's `smart_str` and `CustomFieldInstance.__str__` produce it. */
export function pyStr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (Array.isArray(value)) return `[${value.map((v) => (typeof v === 'string' ? `'${v}'` : pyStr(v))).join(', ')}]`;
  return String(value);
}

/** The document fields auditlog diffs on save (the model's concrete fields, minus `modified`). */
export const LOGGED_FIELDS = [
  'title',
  'content',
  'correspondent',
  'document_type',
  'storage_path',
  'created',
  'archive_serial_number',
  'owner',
] as const;

/** What a save is compared against: the logged fields, tags and custom-field values before the change. */
export interface DocumentSnapshot {
  fields: Record<(typeof LOGGED_FIELDS)[number], unknown>;
  tags: number[];
  custom_fields: Array<{ field: number; value: unknown }>;
}

export function snapshot(doc: SimDocument): DocumentSnapshot {
  return {
    fields: Object.fromEntries(LOGGED_FIELDS.map((f) => [f, doc[f]])) as DocumentSnapshot['fields'],
    tags: [...doc.tags],
    custom_fields: structuredClone(doc.custom_fields),
  };
}
