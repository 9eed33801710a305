import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forbiddenHint, permissionFor } from '../../../server/dms/permission-hint.js';

test('names the permission Paperless checks for each request the client makes', () => {
  const cases: Array<[string, string, string | null]> = [
    ['GET', '/api/custom_fields/', 'view_customfield'],
    ['GET', '/api/document_types/', 'view_documenttype'],
    ['POST', '/api/tags/', 'add_tag'],
    ['PATCH', '/api/documents/7/', 'change_document'],
    ['GET', '/api/documents/7/', 'view_document'],
    ['POST', '/api/documents/bulk_edit/', 'change_document'],
    ['POST', '/api/documents/7/notes/', 'add_note'],
    ['GET', '/api/ui_settings/', 'view_uisettings'],
    ['GET', '/api/documents/next_asn/', null],
  ];
  for (const [method, path, permission] of cases)
    assert.equal(permissionFor(method, path), permission, `${method} ${path}`);
});

test('an object-level refusal on a document names the owner rule, not a model permission', () => {
  assert.match(
    forbiddenHint('PATCH', '/api/documents/7/', 'Insufficient permissions.'),
    /only a superuser or the document's owner/,
  );
  assert.equal(
    forbiddenHint('PATCH', '/api/documents/7/', 'You do not have permission to perform this action.'),
    " (the Paperless token's user lacks the permission change_document)",
  );
  assert.equal(
    forbiddenHint('POST', '/api/documents/bulk_edit/', 'Insufficient permissions'),
    " (the Paperless token's user lacks the permission change_document)",
  );
  assert.equal(
    forbiddenHint('GET', '/api/ui_settings/', 'You do not have permission to perform this action.'),
    " (the Paperless token's user lacks the permission view_uisettings)",
  );
  assert.equal(
    forbiddenHint('GET', '/api/documents/next_asn/', 'You do not have permission to perform this action.'),
    '',
  );
});
