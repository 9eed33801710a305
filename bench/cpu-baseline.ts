import os from 'node:os';
import { startSimulator } from '../tools/paperless-sim/simulator.js';
import { BENCH_RULES, rulesDirWith, tempDir } from './fixtures.js';
import { runJob } from './job-bench.js';
import { startRigService } from './capacity-bench.js';
import type { ServiceProcess } from './service-process.js';
import { round, type Row } from './stats.js';

// Issue 28's "service CPU per document halved from today": the figure moves by a fifth with the host's state
// (docs/performance.md), so it is compared with another build's in the same minutes: service starts of the
// baseline checkout's build and this one alternate on one simulator and corpus (fast dms, realistic documents).

const MODES = ['cold dry', 'warm dry', 'warm unchanged', 'cold unchanged'] as const;

/** The four jobs of the capacity bench on one build, as service CPU µs per document. */
async function fourJobs(start: () => Promise<ServiceProcess>): Promise<number[]> {
  const cpu = async (service: ServiceProcess, dryRun: boolean) => {
    const before = service.cpuSeconds();
    const { event } = await runJob(service, dryRun);
    return ((service.cpuSeconds() - before) / event.processed) * 1e6;
  };
  let service = await start();
  const figures: number[] = [];
  try {
    figures.push(await cpu(service, true), await cpu(service, true), await cpu(service, false));
  } finally {
    await service.stop();
  }
  service = await start();
  try {
    figures.push(await cpu(service, false));
  } finally {
    await service.stop();
  }
  return figures;
}

/**
 * Service CPU per document of the baseline checkout's build (`npm run build` there) and this one, `rounds`
 * alternating rounds of cold dry, warm dry, warm unchanged and cold unchanged jobs over `size` documents; one
 * real run of this build first changes what the rule changes, so the real runs after it are unchanged.
 */
export async function benchCpuBaseline(baselineRoot: string, size = 10_000, rounds = 3): Promise<Row[]> {
  const sim = await startSimulator({ seedDocuments: true, generate: { count: size, seed: 7, realistic: true } });
  const rulesDir = rulesDirWith({ 'bench.yml': BENCH_RULES });
  const start = (root: string) => () => startRigService(sim, rulesDir, tempDir('data'), [], root);
  const rows: Row[] = [];
  try {
    const first = await start(process.cwd())();
    try {
      await runJob(first, false);
    } finally {
      await first.stop();
    }
    for (let r = 1; r <= rounds; r++) {
      const load = os.loadavg()[0].toFixed(1);
      const before = await fourJobs(start(baselineRoot));
      const after = await fourJobs(start(process.cwd()));
      rows.push({
        measure: `round ${r}: service CPU µs/doc, baseline → this build (${MODES.join(', ')})`,
        value: MODES.map((_, i) => `${round(before[i], 0)} → ${round(after[i], 0)}`).join(', '),
        note: `this build ÷ baseline ${after.map((a, i) => round(a / before[i], 2)).join(', ')}; ${size.toLocaleString('en')} realistic documents, fast dms; load ${load} at the round's start`,
      });
    }
  } finally {
    await sim.close();
  }
  return rows;
}
