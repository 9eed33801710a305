import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../../server/app-errors.js';
import { parseRunQuery } from '../../../../server/runs/manual/run-request.js';

const rejects = (query: Record<string, unknown>, mention: RegExp) =>
  assert.throws(
    () => parseRunQuery(query),
    (err: unknown) => err instanceof AppError && err.status === 400 && mention.test(err.message),
  );

describe('run query parameters', () => {
  it('defaults dry_run to true', () => {
    assert.deepEqual(parseRunQuery({ document: '7' }), { document: 7, ruleId: null, dryRun: true });
  });

  it('accepts true, false, 1 and 0 for dry_run', () => {
    assert.equal(parseRunQuery({ document: '7', dry_run: 'false' }).dryRun, false);
    assert.equal(parseRunQuery({ document: '7', dry_run: '0' }).dryRun, false);
    assert.equal(parseRunQuery({ document: '7', dry_run: 'TRUE' }).dryRun, true);
    assert.equal(parseRunQuery({ document: '7', dry_run: '1' }).dryRun, true);
  });

  it('dispatches on document and rule_id', () => {
    assert.deepEqual(parseRunQuery({ rule_id: 'x' }), { document: null, ruleId: 'x', dryRun: true });
    assert.deepEqual(parseRunQuery({ document: '3', rule_id: 'x', dry_run: 'false' }), {
      document: 3,
      ruleId: 'x',
      dryRun: false,
    });
  });

  it('rejects neither document nor rule_id', () => {
    rejects({}, /document.*rule_id/);
    rejects({ dry_run: 'true' }, /document.*rule_id/);
  });

  it('rejects malformed values naming the parameter', () => {
    rejects({ document: 'abc' }, /document/);
    rejects({ document: '0' }, /document/);
    rejects({ document: '2.5' }, /document/);
    rejects({ document: '1', dry_run: 'yes please' }, /dry_run/);
    rejects({ document: '1', rule_id: ' ' }, /rule_id/);
    rejects({ document: ['1', '2'] }, /document/);
  });
});
