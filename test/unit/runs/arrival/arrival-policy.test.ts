import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { admit, handlesAddition, type ArrivalFacts } from '../../../../server/runs/arrival/arrival-policy.js';
import { failedRunRetry } from '../../../../server/runs/arrival/failed-run-retry.js';

const MAX = 6;
const facts = (over: Partial<ArrivalFacts>): ArrivalFacts => ({
  triggers: ['updated'],
  fromRead: false,
  addedHandled: false,
  known: false,
  own: false,
  failedAttempts: 0,
  ...over,
});

/** The decision, and whether the audit log was asked. */
async function decide(over: Partial<ArrivalFacts>, foreignSince = false) {
  let asked = false;
  const skip = await admit(facts(over), MAX, () => {
    asked = true;
    return Promise.resolve(!foreignSince);
  });
  return { skip, asked };
}

describe('the front door decides which arrivals run', () => {
  // [what, facts, nothing foreign since?, expected decision]
  const table: Array<[string, Partial<ArrivalFacts>, boolean, string | null]> = [
    ['a state the service never saw runs, by delivery', {}, false, null],
    ['a state the service never saw runs, by catch-up', { fromRead: true }, false, null],
    ["the service's own write, nothing foreign since: its echo", { known: true, own: true }, false, 'echo'],
    [
      "the service's own write, nothing foreign since, found by catch-up: its echo",
      { known: true, own: true, fromRead: true },
      false,
      'echo',
    ],
    ["the service's own state but someone changed it since (audit log): runs", { known: true, own: true }, true, null],
    ['a state handled without writing, by delivery: Paperless saw a save, runs', { known: true }, false, null],
    [
      'a state handled without writing, by catch-up: no news, skipped',
      { known: true, fromRead: true },
      false,
      'handled',
    ],
    [
      'a new addition is never an echo, even in the state the service wrote',
      { triggers: ['added'], known: true, own: true },
      false,
      null,
    ],
    [
      'a new addition found by catch-up is never skipped',
      { triggers: ['added', 'updated'], known: true, fromRead: true },
      false,
      null,
    ],
    [
      'a repeat of a handled addition, unchanged: skipped',
      { triggers: ['added'], addedHandled: true, known: true },
      false,
      'handled',
    ],
    ['a repeat of a handled addition, changed since: runs', { triggers: ['added'], addedHandled: true }, false, null],
    [
      'a repeat of a handled addition in its own state, someone else changed it: runs',
      { triggers: ['added'], addedHandled: true, known: true, own: true },
      true,
      null,
    ],
    ['a state refused five times is still tried', { failedAttempts: MAX - 1 }, false, null],
    ['a state refused as often as the retries allow is given up on', { failedAttempts: MAX }, false, 'given-up'],
    ['given up wins over an addition', { failedAttempts: MAX, triggers: ['added'] }, false, 'given-up'],
  ];
  for (const [what, over, foreign, expected] of table)
    it(what, async () => assert.equal((await decide(over, foreign)).skip, expected));

  it('asks the audit log only about a state the service wrote', async () => {
    assert.equal((await decide({ known: true, fromRead: true })).asked, false);
    assert.equal((await decide({})).asked, false);
    assert.equal((await decide({ triggers: ['added'], known: true, own: true })).asked, false);
    assert.equal((await decide({ known: true, own: true })).asked, true);
  });
});

describe('the front door retries what the dms failed, then gives up', () => {
  it('tries again after 1, 2, 4, 8 and 16 minutes, and gives up at the sixth failure', () => {
    const retry = failedRunRetry();
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6].map((attempts) => retry.delayMs(attempts)),
      [60_000, 120_000, 240_000, 480_000, 960_000, null],
    );
    assert.equal(retry.maxAttempts, MAX, 'the give-up in admit and in the retries is the same count');
  });

  it('an arrival with anything but updated handles the addition (unknown stands for both)', () => {
    assert.equal(handlesAddition(['updated']), false);
    assert.equal(handlesAddition(['added']), true);
    assert.equal(handlesAddition(['unknown']), true);
    assert.equal(handlesAddition(['added', 'updated']), true);
  });
});
