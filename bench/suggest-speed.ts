// Only the service's speed and memory for rule suggestions (the `suggest` part's last table), for profiling and
// quick figures: `npm run build && npx tsx bench/suggest-speed.ts [--sizes 10000] [--cpu-prof <dir>]`.
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
for (const size of sizes) {
  const load = os.loadavg()[0].toFixed(1);
  for (const r of await benchSuggestService(size, nodeArgs)) rows.push({ ...r, note: `${r.note ?? ''}; load ${load}` });
}
printTable('Rule suggestions: the service end to end', rows);
