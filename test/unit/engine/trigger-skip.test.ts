import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { triggerSkipReason } from '../../../server/engine/trigger-skip.js';

describe('a rule skipped for its trigger says why', () => {
  it('tells a manual run of an on: [added] rule what the rule waits for and how to try it anyway', () => {
    const reason = triggerSkipReason(['added'], 'manual');
    assert.match(reason, /^skipped: the rule runs on added, not on manual/);
    assert.match(reason, /on: \[added\] limits it to documents as they are added/);
    assert.match(reason, /run this rule alone \(a run of one rule ignores on:\) or add manual to on:/);
  });

  it('gives no manual advice to an arrival', () => {
    const reason = triggerSkipReason(['manual'], 'updated');
    assert.match(reason, /on: \[manual\] limits it to manual runs of all rules$/);
  });
});
