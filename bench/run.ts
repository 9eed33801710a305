// `npm run bench`: builds the service, then prints figures. Not part of `npm test`; nothing here asserts time.
// Options: --sizes 1000,10000,100000 (corpus sizes for run-all jobs), --limit-sizes 2000,10000 (limit comparison),
// --capacity-sizes 1000,10000 (the comparison with the dms's capacity; --with-100k adds 100,000 documents,
// which takes several minutes per profile), --capacity-profiles slow,fast-realistic (also slow-one-worker: the slow profile with one web worker), --cpu-prof <dir>, --skip capacity,limit,jobs,latency,large-answer,burst,history,reload,suggest; --baseline <checkout> adds webhook acceptance of that checkout's
// build against this one, alternating in one run (build it first: `npm run build` there); --cpu-baseline <checkout>
// adds service CPU per document of that checkout's build against this one (fast realistic, 10,000 documents)
import { execSync } from 'node:child_process';
import os from 'node:os';
import { benchHeapCap, benchJobs, benchQueryJob } from './job-bench.js';
import { benchHistory } from './history-bench.js';
import { benchLimit } from './limit-bench.js';
import { benchCapacity, type CapacityProfile } from './capacity-bench.js';
import { SLOW_DMS } from '../tools/paperless-sim/slow-dms.js';
import { benchLatency, benchReload } from './latency-bench.js';
import { benchLargeAnswer } from './large-answer-bench.js';
import { benchBurst } from './burst-bench.js';
import { benchEventStoreBaseline, benchWebhookBaseline, benchWriteBaseline } from './webhook-baseline.js';
import { benchCpuBaseline } from './cpu-baseline.js';
import { printTable, type Row } from './stats.js';
import { benchGeneratedArchive, benchSpamAssassin, benchSuggestService } from './suggest-bench.js';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const sizes = (option('sizes') ?? '1000,10000,100000').split(',').map(Number);
const limitSizes = (option('limit-sizes') ?? '2000,10000').split(',').map(Number);
const skip = new Set((option('skip') ?? '').split(','));
// --cpu-prof <dir>: the service of the capacity comparison writes V8 CPU profiles there (one per service start).
const profileDir = option('cpu-prof');
const profileArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
const capacityProfiles = (option('capacity-profiles') ?? 'slow,fast-realistic').split(',') as CapacityProfile[];
const capacitySizes = (option('capacity-sizes') ?? '1000,10000').split(',').map(Number);
if (process.argv.includes('--with-100k')) capacitySizes.push(100_000);

execSync('npm run build --silent', { stdio: 'inherit' });
console.log(
  `# dms-rules benchmark, ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
);

if (!skip.has('capacity')) {
  const rows: Row[] = [];
  for (const kind of capacityProfiles)
    for (const size of capacitySizes) rows.push(...(await benchCapacity(size, kind, { nodeArgs: profileArgs })));
  printTable(`Run-all against the dms's capacity (load average at start ${os.loadavg()[0].toFixed(1)})`, rows);
}
if (!skip.has('limit')) {
  const rows: Row[] = [];
  for (const size of limitSizes) {
    rows.push(...(await benchLimit(size, null)));
    rows.push(
      ...(await benchLimit(size, null, {
        env: { SVC_EVAL_WORKERS: '0' },
        label: ', evaluation on the main thread',
        real: false,
      })),
    );
  }
  for (const size of limitSizes) rows.push(...(await benchLimit(size, SLOW_DMS)));
  printTable('Limit comparison: run-all against the bare paged read of the same dms', rows);
}
if (!skip.has('jobs')) {
  const rows: Row[] = [];
  for (const size of sizes) rows.push(...(await benchJobs(size)));
  rows.push(...(await benchQueryJob(Math.min(...sizes))));
  rows.push(...(await benchHeapCap(Math.max(...sizes), 96)));
  printTable('Run-all jobs (one rule over every document)', rows);
}
if (!skip.has('latency')) printTable('Latency', await benchLatency());
if (!skip.has('large-answer')) printTable('Health while a large dms answer is read', await benchLargeAnswer());
if (!skip.has('burst')) printTable('Webhook bursts against the slow dms', await benchBurst());
const baseline = option('baseline');
if (baseline)
  printTable('Webhook acceptance against a baseline build', [
    ...(await benchEventStoreBaseline(baseline)),
    ...(await benchWebhookBaseline(baseline)),
    ...(await benchWriteBaseline(baseline)),
  ]);
const cpuBaseline = option('cpu-baseline');
if (cpuBaseline) printTable('Service CPU per document against a baseline build', await benchCpuBaseline(cpuBaseline));
if (!skip.has('history')) printTable('Trace history', await benchHistory());
if (!skip.has('reload')) printTable('Rules reload', await benchReload(1000));
if (!skip.has('suggest')) {
  printTable('Rule suggestions: generated archive, holdout precision / recall', await benchGeneratedArchive(2000));
  printTable(
    'Rule suggestions: SpamAssassin corpus by mailing list, holdout precision / recall',
    await benchSpamAssassin(),
  );
  const rows: Row[] = [];
  for (const size of [2500, 10_000]) rows.push(...(await benchSuggestService(size)));
  printTable('Rule suggestions: the service end to end', rows);
}
