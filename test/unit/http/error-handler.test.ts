import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DmsError, DmsNotFoundError, DmsQueryError, DmsValueError } from '../../../server/dms/dms-errors.js';
import { AppError } from '../../../server/app-errors.js';
import { httpErrorOf } from '../../../server/http/middleware/error-handler.js';

test('dms errors are no HTTP errors; the edge gives them their status and keeps their message', () => {
  const cases: Array<[Error, number]> = [
    [new DmsNotFoundError('Document 11 does not exist.', 'GET /api/documents/11/'), 404],
    [new DmsValueError('Custom field "Amount" (monetary): "abc" is no amount', 'Amount'), 400],
    [
      new DmsQueryError('Unknown dms document filter "tag__id"; Paperless would ignore it and match every document.'),
      400,
    ],
    [new DmsError('dms answered 401 to GET /api/documents/1/: Invalid token.', 'GET /api/documents/1/', 401), 502],
    [new DmsError('dms GET /api/documents/1/ timed out', 'GET /api/documents/1/', null), 502],
  ];
  for (const [err, status] of cases) {
    assert.ok(!(err instanceof AppError), `${err.name} is not an AppError`);
    const mapped = httpErrorOf(err);
    assert.ok(mapped instanceof AppError);
    assert.equal(mapped.status, status);
    assert.equal(mapped.message, err.message);
  }
});

test('errors that are not the dms layer pass through unchanged', () => {
  const plain = new TypeError('boom');
  assert.equal(httpErrorOf(plain), plain);
});
