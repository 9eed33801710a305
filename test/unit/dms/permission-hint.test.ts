import assert from 'node:assert/strict';
import { test } from 'node:test';
import { permissionFor } from '../../../server/dms/permission-hint.js';

test('names the permission Paperless checks for each request the client makes', () => {
  const cases: Array<[string, string, string | null]> = [
    ['GET', '/api/custom_fields/', 'view_customfield'],
    ['GET', '/api/document_types/', 'view_documenttype'],
    ['POST', '/api/tags/', 'add_tag'],
    ['PATCH', '/api/documents/7/', 'change_document'],
    ['GET', '/api/documents/7/', 'view_document'],
    ['POST', '/api/documents/bulk_edit/', 'change_document'],
    ['POST', '/api/documents/7/notes/', 'add_note'],
    ['GET', '/api/ui_settings/', null],
    ['GET', '/api/documents/next_asn/', null],
  ];
  for (const [method, path, permission] of cases) assert.equal(permissionFor(method, path), permission, `${method} ${path}`);
});
