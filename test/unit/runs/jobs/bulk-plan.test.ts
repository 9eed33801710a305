import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DmsDocument } from '../../../../server/dms/types.js';
import { bulkOpsFor, groupWrites } from '../../../../server/runs/jobs/bulk-plan.js';

function doc(id: number, tags: number[], extra: Partial<DmsDocument> = {}): DmsDocument {
  return {
    id, tags, correspondent: null, document_type: null, storage_path: null, title: `doc ${id}`, content: '', created: '2025-01-01',
    modified: '', added: '', archive_serial_number: null, original_file_name: null, owner: null, notes: [], custom_fields: [], page_count: 1, mime_type: 'application/pdf', ...extra,
  };
}

test('a tags patch becomes the difference against the current set', () => {
  assert.deepEqual(bulkOpsFor(doc(1, [1, 5]), { tags: [5, 2, 3] }), [{ method: 'modify_tags', parameters: { add_tags: [2, 3], remove_tags: [1] } }]);
});

test('relations become set_* edits; null clears', () => {
  assert.deepEqual(bulkOpsFor(doc(1, []), { correspondent: 4, document_type: null }), [
    { method: 'set_correspondent', parameters: { correspondent: 4 } },
    { method: 'set_document_type', parameters: { document_type: null } },
  ]);
});

test('anything a bulk edit cannot express exactly stays a PATCH', () => {
  assert.equal(bulkOpsFor(doc(1, []), { title: 'x', tags: [1] }), null);
  assert.equal(bulkOpsFor(doc(1, []), { custom_fields: [{ field: 1, value: 'a' }] }), null);
  assert.equal(bulkOpsFor(doc(1, []), { created: '2025-01-02' }), null);
});

test('documents with the same edit are grouped whatever their other tags; lone edits stay single', () => {
  const { groups, singles } = groupWrites([
    { document: doc(1, [7]), patch: { tags: [7, 9] } },
    { document: doc(2, [8]), patch: { tags: [8, 9] } },
    { document: doc(3, []), patch: { tags: [9] } },
    { document: doc(4, []), patch: { correspondent: 2 } },
    { document: doc(5, []), patch: { title: 'T' } },
  ]);
  assert.deepEqual(groups, [{ ops: [{ method: 'modify_tags', parameters: { add_tags: [9], remove_tags: [] } }], documents: [1, 2, 3] }]);
  assert.deepEqual(singles.sort(), [4, 5]);
});
