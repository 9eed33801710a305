import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dmsBusyReason } from '../../../server/settings/dms-change.js';

describe('switching the dms while work runs on it', () => {
  it('is allowed when nothing runs', () => {
    assert.equal(dmsBusyReason({ jobs: 0, deliveries: 0, notes: 0 }), null);
  });

  it('names what runs, so the person knows what to wait for', () => {
    assert.match(
      dmsBusyReason({ jobs: 1, deliveries: 3, notes: 2 }) ?? '',
      /^Not saved: work on the current dms is under way \(1 job, 3 webhook deliveries, 2 notes not yet added\)/,
    );
    assert.match(dmsBusyReason({ jobs: 2, deliveries: 1, notes: 0 }) ?? '', /\(2 jobs, 1 webhook delivery\)/);
  });
});
