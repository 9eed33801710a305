// `npm run chaos -- [runs per profile] [kills per run]`: the chaos flood of test/reliability/chaos-flood-kill.test.ts
// with more seeds than `npm test` affords. Prints each run's counts and the totals; exits 1 when anything was
// doubled, missed, lost or sent under two keys. The figures are in docs/jobs-and-webhook.md ("Chaos").
import type { SimProfileName } from '../../server/dms/demo/profiles.js';
import { floodWithKills, type FloodCounts } from './support/chaos-flood.js';

const runs = Number(process.argv[2] ?? 5);
const kills = Number(process.argv[3] ?? 4);
const PROFILES: SimProfileName[] = ['2.20', '3.0'];
const BAD = ['doubled', 'missed', 'notesDoubled', 'notificationsLost', 'twoKeys', 'doneWithoutTraces'] as const;

const totals: Record<string, number> = { runs: 0, starts: 0, kills: 0, documents: 0, deliveries: 0, refused: 0 };
for (const key of BAD) totals[key] = 0;
for (let i = 0; i < runs; i++) {
  for (const profile of PROFILES) {
    const counts: FloodCounts = await floodWithKills(profile, 1000 + i, { kills, batch: 8, whileDown: 2 });
    console.log(JSON.stringify(counts));
    totals.runs++;
    totals.starts += counts.runs;
    totals.kills += counts.kills;
    totals.documents += counts.documents;
    totals.deliveries += counts.deliveries;
    totals.refused += counts.refused;
    for (const key of BAD) totals[key] += counts[key];
  }
}
console.log(`chaos totals: ${JSON.stringify(totals)}`);
if (BAD.some((key) => totals[key] > 0)) process.exitCode = 1;
