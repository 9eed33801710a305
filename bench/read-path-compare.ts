// The learnt read path (page sizes from the dms's answer costs, requests in flight from its probed worker count)
// against fixed settings, side by side in one run on the slow profile with four workers and with one. Figures only.
// Usage, after `npm run build`: node --import tsx bench/read-path-compare.ts [sizes, default 1000,10000] [rounds, 3]
// The fixed variants run a copy of this build's dist/ in a temporary folder, patched so that document reads use
// FIX_PAGE rows per request and FIX_AHEAD requests ahead (plus one queued) and the concurrency probe tells nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SLOW_DMS, type SlowDmsProfile } from '../tools/paperless-sim/slow-dms.js';
import { startSimulator, type Simulator } from '../tools/paperless-sim/simulator.js';
import { BENCH_RULES, rulesDirWith, tempDir } from './fixtures.js';
import { runJob } from './job-bench.js';
import { startService } from './service-process.js';

const [sizesRaw, repsRaw] = process.argv.slice(2);

/** A copy of dist/ whose read path takes its page size and read-ahead from FIX_PAGE and FIX_AHEAD. */
function fixedBuild(): string {
  const root = tempDir('fixed-read');
  fs.cpSync('dist', path.join(root, 'dist'), { recursive: true });
  fs.copyFileSync('package.json', path.join(root, 'package.json'));
  fs.symlinkSync(path.resolve('node_modules'), path.join(root, 'node_modules'));
  const patch = (file: string, from: string, to: string) => {
    const where = path.join(root, 'dist/server/dms', file);
    const text = fs.readFileSync(where, 'utf8');
    if (!text.includes(from)) throw new Error(`${file} no longer has: ${from}`);
    fs.writeFileSync(where, text.replace(from, to));
  };
  patch(
    'document-stream.js',
    'const servedAhead = (transport, asked) => Math.min(asked, transport.costs?.concurrency() ?? asked);',
    'const servedAhead = (transport, asked) => (asked > 0 ? Number(process.env.FIX_AHEAD) : asked);',
  );
  patch(
    'document-stream.js',
    'export async function* streamDocuments(transport, query) {\n',
    "export async function* streamDocuments(transport, query) {\n    if (typeof query.pageSize !== 'number') query = { ...query, pageSize: Number(process.env.FIX_PAGE) };\n",
  );
  patch(
    'paperless-client.js',
    'probeConcurrency: () => probeConcurrency(transport).catch(() => null),',
    "probeConcurrency: () => Promise.resolve('quick'),",
  );
  return root;
}

const fixedRoot = fixedBuild();
const sizes = (sizesRaw ?? '1000,10000').split(',').map(Number);
const reps = Number(repsRaw ?? 3);
const profiles: Array<[string, SlowDmsProfile]> = [
  ['slow (4 workers)', SLOW_DMS],
  ['slow, one worker', { ...SLOW_DMS, workers: 1 }],
];
const variants: Array<{ name: string; root: string; env: Record<string, string> }> = [
  { name: 'tuned', root: process.cwd(), env: {} },
  { name: 'fixed 2 out, 500 rows', root: fixedRoot, env: { FIX_AHEAD: '1', FIX_PAGE: '500' } },
  { name: 'fixed 5 out, 500 rows', root: fixedRoot, env: { FIX_AHEAD: '4', FIX_PAGE: '500' } },
  { name: 'fixed 5 out, 100 rows', root: fixedRoot, env: { FIX_AHEAD: '4', FIX_PAGE: '100' } },
];

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
              const { jobSeconds } = await runJob(service, true);
              const w = waits(sim, from);
              const key = `${pname} ${size} ${mode} | ${v.name}`;
              add(`${key} | s/capacity`, jobSeconds / capacity);
              add(`${key} | queue wait max s`, w.max);
              add(`${key} | queue wait median s`, w.median);
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
