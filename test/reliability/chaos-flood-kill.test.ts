import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { SimProfileName } from '../../server/dms/demo/profiles.js';
import { floodWithKills, type FloodCounts, type FloodPlan } from './support/chaos-flood.js';

// The flood of docs/jobs-and-webhook.md ("Chaos"): Paperless's own webhooks for new documents, kill -9 at seeded
// points, on a 3.0 profile (2.x: chaos-flood-kill-2x.test.ts). `npm run chaos -- N` runs N seeds per profile.
const PLAN: FloodPlan = { kills: 2, batch: 6, whileDown: 2 };

describe('a webhook flood with kill -9 at seeded points', () => {
  const results: FloodCounts[] = [];
  after(() => {
    for (const r of results) console.log(`chaos flood: ${JSON.stringify(r)}`);
  });

  for (const [profile, seed] of [['3.0', 12]] as Array<[SimProfileName, number]>) {
    test(`on ${profile}: no title doubled, no document missed, one note and one notification key each`, async () => {
      const counts = await floodWithKills(profile, seed, PLAN);
      results.push(counts);
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
});
