import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bulkOpsFor, groupWrites, type DocumentWrite } from '../../../../server/runs/jobs/bulk-plan.js';

const write = (over: Partial<DocumentWrite>): DocumentWrite => ({ patch: {}, tags: null, customFields: null, ...over });

test('a tag difference becomes one modify_tags edit', () => {
  assert.deepEqual(bulkOpsFor(write({ tags: { add: [3, 2], remove: [1] } })), [
    { method: 'modify_tags', parameters: { add_tags: [2, 3], remove_tags: [1] } },
  ]);
});

test('relations become set_* edits; null clears', () => {
  assert.deepEqual(bulkOpsFor(write({ patch: { correspondent: 4, document_type: null } })), [
    { method: 'set_correspondent', parameters: { correspondent: 4 } },
    { method: 'set_document_type', parameters: { document_type: null } },
  ]);
});

test('custom fields become modify_custom_fields with an {id: value} mapping and the fields to detach', () => {
  const ops = bulkOpsFor(
    write({
      customFields: {
        set: [
          { field: 4, value: 'X-1' },
          { field: 1, value: null },
        ],
        remove: [3],
      },
    }),
  );
  assert.deepEqual(ops, [
    {
      method: 'modify_custom_fields',
      parameters: { add_custom_fields: { 1: null, 4: 'X-1' }, remove_custom_fields: [3] },
    },
  ]);
});

test('anything a bulk edit cannot express exactly stays a single write', () => {
  assert.equal(bulkOpsFor(write({ patch: { title: 'x' }, tags: { add: [1], remove: [] } })), null);
  assert.equal(bulkOpsFor(write({ patch: { created: '2025-01-02' } })), null);
  assert.equal(bulkOpsFor(write({ patch: { archive_serial_number: 4 } })), null);
});

test('documents with the same edit are grouped whatever their other tags; lone edits stay single', () => {
  const { groups, singles } = groupWrites([
    { document: 1, write: write({ tags: { add: [9], remove: [] } }) },
    { document: 2, write: write({ tags: { add: [9], remove: [] } }) },
    { document: 3, write: write({ tags: { add: [9], remove: [] } }) },
    { document: 4, write: write({ patch: { correspondent: 2 } }) },
    { document: 5, write: write({ patch: { title: 'T' } }) },
  ]);
  assert.deepEqual(groups, [
    { ops: [{ method: 'modify_tags', parameters: { add_tags: [9], remove_tags: [] } }], documents: [1, 2, 3] },
  ]);
  assert.deepEqual(singles.sort(), [4, 5]);
});
