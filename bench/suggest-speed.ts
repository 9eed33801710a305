// Only the service's speed and memory for rule suggestions (the `suggest` part's last table), for profiling and
// quick figures: `npm run build && npx tsx bench/suggest-speed.ts [--sizes 10000] [--cpu-prof <dir>]
// [--baseline <checkout>]` (the baseline's build, which must be built, runs first at each size).
import os from 'node:os';
import { benchSuggestService } from './suggest-bench.js';
import { printTable, type Row } from './stats.js';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const sizes = (option('sizes') ?? '2500,10000').split(',').map(Number);
const profileDir = option('cpu-prof');
const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
const rows: Row[] = [];
const baseline = option('baseline');
for (const size of sizes)
  for (const root of baseline ? [baseline, undefined] : [undefined]) {
    const load = os.loadavg()[0].toFixed(1);
    for (const r of await benchSuggestService(size, nodeArgs, root))
      rows.push({ ...r, measure: `${root ? 'baseline: ' : ''}${r.measure}`, note: `load ${load}; ${r.note ?? ''}` });
  }
printTable('Rule suggestions: the service end to end', rows);
