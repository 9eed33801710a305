// One-off: the 100,000-document heap-capped dry run alone (`npx tsx bench/heap-cap-only.ts [size] [MiB]`).
import { execSync } from 'node:child_process';
import os from 'node:os';
import { benchHeapCap } from './job-bench.js';
import { printTable } from './stats.js';

execSync('npm run build --silent', { stdio: 'inherit' });
const size = Number(process.argv[2] ?? 100_000);
const mib = Number(process.argv[3] ?? 96);
printTable(`Heap cap (load average ${os.loadavg()[0].toFixed(1)})`, await benchHeapCap(size, mib));
