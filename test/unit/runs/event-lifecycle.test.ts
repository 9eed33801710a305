import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventStore } from '../../../server/history/event-store.js';
import { eventLifecycle, type EventWork } from '../../../server/runs/event-lifecycle.js';

type Patch = Parameters<EventStore['update']>[1];
const NOW = new Date('2026-03-01T10:00:00Z');

/** The patches a lifecycle writes, with whether each rides the next group commit. */
function recorder(work: EventWork, soon = false) {
  const writes: Array<{ patch: Patch; soon: boolean }> = [];
  const events = {
    update: (_id: number, patch: Patch, options?: { soon?: boolean }) => {
      writes.push({ patch, soon: options?.soon === true });
      return undefined;
    },
  };
  return { life: eventLifecycle(events, work, () => NOW, { soon }), writes };
}

describe('event lifecycle: one wording per end, for every kind of work', () => {
  it('running stamps the start; done clears the error and stamps the end', () => {
    const { life, writes } = recorder('job');
    life.running(1, { total: 3 });
    life.done(1, { processed: 3 });
    assert.deepEqual(
      writes.map((w) => w.patch),
      [
        { total: 3, status: 'running', started_at: NOW.toISOString() },
        { error: null, processed: 3, status: 'done', finished_at: NOW.toISOString() },
      ],
    );
  });

  it('a stop says what happens next for each kind of work, a cancel the same everywhere', () => {
    const ends = (['job', 'revert', 'catchup', 'suggestion'] as const).map((work) => {
      const { life, writes } = recorder(work);
      life.stopped(1, 'shutdown');
      life.stopped(1, 'cancel');
      return writes.map((w) => [w.patch.status, w.patch.error]);
    });
    assert.deepEqual(ends, [
      [
        ['interrupted', 'The service stopped while this job ran; run it again.'],
        ['cancelled', 'Cancelled on request.'],
      ],
      [
        ['interrupted', 'The service stopped while this revert ran; run it again.'],
        ['cancelled', 'Cancelled on request.'],
      ],
      [
        ['interrupted', 'The service stopped during the catch-up; the next start continues it.'],
        ['cancelled', 'Cancelled on request.'],
      ],
      [
        ['interrupted', 'The service stopped while this suggestion ran; ask for it again.'],
        ['cancelled', 'Cancelled on request.'],
      ],
    ]);
  });

  it('work that never started, was refused or crashed says so', () => {
    const { life, writes } = recorder('job');
    life.notStarted(1, 'cancel');
    life.notStarted(2, 'shutdown');
    life.refused(3, 'too many jobs waiting.');
    life.crashed(4, new Error('the dms said 500'));
    assert.deepEqual(
      writes.map((w) => [w.patch.status, w.patch.error]),
      [
        ['cancelled', 'Cancelled before it started.'],
        ['interrupted', 'The service stopped before this job started; start it again.'],
        ['failed', 'Refused: too many jobs waiting.'],
        ['failed', 'The job stopped: the dms said 500'],
      ],
    );
  });

  it("a delivery's retry and merge ride the next group commit and name the time and the newer event", () => {
    const { life, writes } = recorder('webhook', true);
    life.retrying(1, 'The dms failed while writing document 7: 400', 2, NOW);
    life.merged(1, 'merged into webhook event 2');
    assert.deepEqual(
      writes.map((w) => [w.patch.status, w.patch.error, w.soon]),
      [
        [
          'queued',
          `The dms failed while writing document 7: 400; tried 2 time(s), trying again at ${NOW.toISOString()}`,
          true,
        ],
        ['done', 'Merged: merged into webhook event 2.', true],
      ],
    );
  });
});
