import type { DmsDocument } from '../../server/dms/types.js';

/** A plain document as the dms client returns it (no names set, one PDF page); `over` sets what a test needs. */
export function dmsDocument(id: number, over: Partial<DmsDocument> = {}): DmsDocument {
  return {
    id,
    correspondent: null,
    document_type: null,
    storage_path: null,
    title: `Doc ${id}`,
    content: 'text',
    tags: [],
    created: '2026-01-01',
    modified: '2026-01-02T00:00:00Z',
    added: '2025-12-01T00:00:00Z',
    archive_serial_number: null,
    original_file_name: null,
    owner: null,
    notes: [],
    custom_fields: [],
    page_count: 1,
    mime_type: 'application/pdf',
    ...over,
  };
}
