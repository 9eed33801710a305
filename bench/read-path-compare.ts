// The read plan side by side: this build with several SVC_DMS_WORKERS (and SVC_DMS_PAGE_SIZE) settings, and
// optionally another checkout's build (--baseline <folder with a built dist/>, e.g. an older read path), on the slow
// profile with four workers and with one, in one run. Dry runs; figures only (docs/performance.md).
// Usage, after `npm run build`:
//   node --import tsx bench/read-path-compare.ts [sizes, default 1000,10000] [rounds, 3]
//     [--workers 1,2,4] [--page-size 500] [--baseline <folder>] [--profiles slow,slow-one-worker]
import os from 'node:os';
import { SLOW_DMS, type SlowDmsProfile } from '../tools/paperless-sim/slow-dms.js';
import { startSimulator, type Simulator } from '../tools/paperless-sim/simulator.js';
import { BENCH_RULES, rulesDirWith, tempDir } from './fixtures.js';
import { runJob } from './job-bench.js';
import { startService } from './service-process.js';

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args.splice(at, 2)[1] : undefined;
};
const baseline = option('baseline');
const workerCounts = (option('workers') ?? '1,2,4').split(',').map(Number);
const pageSize = option('page-size') ?? '500';
const profileNames = (option('profiles') ?? 'slow,slow-one-worker').split(',');
const [sizesRaw, repsRaw] = args;
const sizes = (sizesRaw ?? '1000,10000').split(',').map(Number);
const reps = Number(repsRaw ?? 3);

const PROFILES: Record<string, [string, SlowDmsProfile]> = {
  slow: ['slow (4 workers)', SLOW_DMS],
  'slow-one-worker': ['slow, one worker', { ...SLOW_DMS, workers: 1 }],
};
const profiles = profileNames.map((name) => {
  const profile = PROFILES[name];
  if (!profile) throw new Error(`unknown profile ${name}; known: ${Object.keys(PROFILES).join(', ')}`);
  return profile;
});
const variants: Array<{ name: string; root: string; env: Record<string, string> }> = [
  ...(baseline ? [{ name: `baseline ${baseline}`, root: baseline, env: {} }] : []),
  ...workerCounts.map((workers) => ({
    name: `${pageSize} rows, ${workers} worker${workers === 1 ? '' : 's'}`,
    root: process.cwd(),
    env: { SVC_DMS_WORKERS: String(workers), SVC_DMS_PAGE_SIZE: pageSize },
  })),
];

/** Document requests since `from`: how many, and how long they waited in the dms's queue (median, longest). */
function waits(sim: Simulator, from: number): { median: number; max: number; requests: number } {
  const w = sim
    .requestTimes()
    .filter((t) => t.arrived >= from && t.request.startsWith('GET /api/documents/'))
    .map((t) => (t.started - t.arrived) / 1000)
    .sort((a, b) => a - b);
  return { median: w[w.length >> 1] ?? 0, max: w.at(-1) ?? 0, requests: w.length };
}

const results: Record<string, number[]> = {};
const add = (key: string, v: number) => (results[key] ??= []).push(v);

for (const [pname, profile] of profiles)
  for (const size of sizes) {
    const sim = await startSimulator({
      seedDocuments: true,
      generate: { count: size, seed: 7, realistic: true },
      slow: profile,
    });
    const capacity =
      (Math.ceil(size / 100_000) * profile.latencyMs + sim.store.documents.size * profile.perDocumentMs) /
      profile.workers /
      1000;
    const rulesDir = rulesDirWith({ 'bench.yml': BENCH_RULES });
    try {
      for (let rep = 0; rep < reps; rep++) {
        // Rotating order: no variant always runs first (or last) in a round on a machine whose load changes.
        const order = variants.map((_, i) => variants[(i + rep) % variants.length]);
        for (const v of order) {
          const service = await startService(v.root, {
            SVC_DMS_URL: sim.url,
            SVC_DMS_TOKEN: sim.token,
            SVC_RULES_DIR: rulesDir,
            SVC_DATA_DIR: tempDir('data'),
            ...v.env,
          });
          try {
            for (const mode of ['cold', 'warm']) {
              const from = Date.now();
              const { jobSeconds } = await runJob(service, true).catch((err: unknown) => {
                throw new Error(`${v.name}: the job failed; the service said: ${service.stderrTail()}`, { cause: err });
              });
              const w = waits(sim, from);
              const key = `${pname} ${size} ${mode} | ${v.name}`;
              add(`${key} | s/capacity`, jobSeconds / capacity);
              add(`${key} | queue wait max s`, w.max);
              add(`${key} | requests`, w.requests);
              console.log(
                `${key}: ${(jobSeconds / capacity).toFixed(2)}× capacity (${jobSeconds.toFixed(2)} s), queue wait median ${w.median.toFixed(2)} s max ${w.max.toFixed(2)} s, ${w.requests} requests, load ${os.loadavg()[0].toFixed(1)}`,
              );
            }
          } finally {
            await service.stop();
          }
        }
      }
    } finally {
      await sim.close();
    }
  }
console.log('\n# medians');
for (const [k, v] of Object.entries(results)) {
  const s = [...v].sort((a, b) => a - b);
  console.log(`${k}: median ${s[s.length >> 1].toFixed(2)} (${s.map((x) => x.toFixed(2)).join(', ')})`);
}
