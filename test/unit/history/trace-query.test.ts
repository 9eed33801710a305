import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../server/app-errors.js';
import { parseTraceQuery } from '../../../server/history/trace-query.js';

function rejects(query: Record<string, unknown>, mention: string) {
  assert.throws(
    () => parseTraceQuery(query),
    (err: unknown) => err instanceof AppError && err.status === 400 && err.message.includes(mention),
  );
}

describe('trace query parameters', () => {
  it('defaults the limit to 100', () => {
    assert.deepEqual(parseTraceQuery({}), { limit: 100 });
  });

  it('clamps a limit above 1000 to 1000', () => {
    assert.equal(parseTraceQuery({ limit: '5000' }).limit, 1000);
    assert.equal(parseTraceQuery({ limit: '7' }).limit, 7);
  });

  it('parses every filter', () => {
    assert.deepEqual(parseTraceQuery({ document: '12', rule_id: 'acme', event_id: '3', status: 'not_matched' }), {
      limit: 100,
      document: 12,
      rule_id: 'acme',
      event_id: 3,
      status: 'not_matched',
    });
  });

  it('rejects malformed values with a message naming the parameter', () => {
    rejects({ limit: '0' }, 'limit');
    rejects({ limit: 'ten' }, 'limit');
    rejects({ limit: '-5' }, 'limit');
    rejects({ document: '1.5' }, 'document');
    rejects({ event_id: 'x' }, 'event_id');
    rejects({ status: 'done' }, 'status');
    rejects({ rule_id: '' }, 'rule_id');
    rejects({ document: ['1', '2'] }, 'document');
  });
});
