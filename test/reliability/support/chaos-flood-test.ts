import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SimProfileName } from '../../../server/dms/demo/profiles.js';
import { floodWithKills, type FloodPlan } from './chaos-flood.js';

// The `npm test` part of the chaos flood, one profile per file so the two run side by side: one kill -9 at a seeded
// write among a batch's, then documents added while the service is down. `npm run chaos -- N K` is the full run.
const PLAN: FloodPlan = { kills: 1, batch: 6, whileDown: 2 };

/** The flood on one profile with one seed: nothing doubled, missed, lost or sent under two keys. */
export function floodTest(profile: SimProfileName, seed: number): void {
  test(`a webhook flood with kill -9 at seeded points on ${profile}: no title doubled, no document missed, one note and one notification key each`, async () => {
    const counts = await floodWithKills(profile, seed, PLAN);
    console.log(`chaos flood: ${JSON.stringify(counts)}`);
    assert.ok(counts.deliveries > 0, 'Paperless delivered webhooks to the service');
    assert.deepEqual(
      {
        doubled: counts.doubled,
        missed: counts.missed,
        notesDoubled: counts.notesDoubled,
        notificationsLost: counts.notificationsLost,
        twoKeys: counts.twoKeys,
        doneWithoutTraces: counts.doneWithoutTraces,
      },
      { doubled: 0, missed: 0, notesDoubled: 0, notificationsLost: 0, twoKeys: 0, doneWithoutTraces: 0 },
      JSON.stringify(counts),
    );
  });
}
