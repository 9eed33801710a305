import os from 'node:os';
import { startSimulator } from '../tools/paperless-sim/simulator.js';
import { BENCH_RULES, rulesDirWith, tempDir } from './fixtures.js';
import { runJob } from './job-bench.js';
import { startRigService } from './capacity-bench.js';
import type { ServiceProcess } from './service-process.js';
import { percentile, round, type Row } from './stats.js';

// Service CPU per document against another build: the figure moves by a fifth with the host's state
// within minutes (docs/performance.md), so it is compared with another build's job by job: both builds' services
// run on one simulator and corpus (fast dms, realistic documents), and each mode's two jobs run back to back,
// seconds apart, the build that goes first alternating from round to round.

const MODES = ['cold dry', 'warm dry', 'warm unchanged', 'cold unchanged'] as const;

type Start = () => Promise<ServiceProcess>;

async function cpuPerDocument(service: ServiceProcess, dryRun: boolean): Promise<number> {
  const before = service.cpuSeconds();
  const { event } = await runJob(service, dryRun);
  return ((service.cpuSeconds() - before) / event.processed) * 1e6;
}

/** Both builds' services at once (an idle one costs nothing), stopped together. */
async function withPair<T>(starts: [Start, Start], work: (pair: ServiceProcess[]) => Promise<T>): Promise<T> {
  const pair: ServiceProcess[] = [];
  try {
    for (const start of starts) pair.push(await start());
    return await work(pair);
  } finally {
    await Promise.all(pair.map((service) => service.stop()));
  }
}

/** The four jobs of the capacity bench, each mode on both builds in turn (`order` first); CPU µs/doc per build. */
async function fourJobPairs(starts: [Start, Start], order: [number, number]): Promise<[number[], number[]]> {
  const figures: [number[], number[]] = [[], []];
  const both = async (pair: ServiceProcess[], dryRun: boolean) => {
    for (const i of order) figures[i].push(await cpuPerDocument(pair[i], dryRun));
  };
  await withPair(starts, async (pair) => {
    await both(pair, true);
    await both(pair, true);
    await both(pair, false);
  });
  await withPair(starts, (pair) => both(pair, false));
  return figures;
}

/**
 * Service CPU per document of the baseline checkout's build (`npm run build` there) and this one over `rounds`
 * rounds of cold dry, warm dry, warm unchanged and cold unchanged jobs over `size` documents, job by job; one
 * real run of this build first changes what the rule changes, so the real runs after it are unchanged.
 */
export async function benchCpuBaseline(baselineRoot: string, size = 10_000, rounds = 3): Promise<Row[]> {
  const sim = await startSimulator({ seedDocuments: true, generate: { count: size, seed: 7, realistic: true } });
  const rulesDir = rulesDirWith({ 'bench.yml': BENCH_RULES });
  const start = (root: string) => () => startRigService(sim, rulesDir, tempDir('data'), [], root);
  const starts: [Start, Start] = [start(baselineRoot), start(process.cwd())];
  const rows: Row[] = [];
  const ratios: number[][] = MODES.map(() => []);
  try {
    const first = await starts[1]();
    try {
      await runJob(first, false);
    } finally {
      await first.stop();
    }
    for (let r = 1; r <= rounds; r++) {
      const load = os.loadavg()[0].toFixed(1);
      const order: [number, number] = r % 2 === 1 ? [0, 1] : [1, 0];
      const [before, after] = await fourJobPairs(starts, order);
      const ratio = after.map((a, i) => a / before[i]);
      ratio.forEach((x, i) => ratios[i].push(x));
      rows.push({
        measure: `round ${r}: service CPU µs/doc, baseline → this build (${MODES.join(', ')})`,
        value: MODES.map((_, i) => `${round(before[i], 0)} → ${round(after[i], 0)}`).join(', '),
        note: `this build ÷ baseline ${ratio.map((x) => round(x, 2)).join(', ')}; ${order[0] === 0 ? 'baseline' : 'this build'} first in each pair; ${size.toLocaleString('en')} realistic documents, fast dms; load ${load} at the round's start`,
      });
    }
    rows.push({
      measure: `this build ÷ baseline, median of ${rounds} rounds (${MODES.join(', ')})`,
      value: ratios.map((r) => round(percentile(r, 50), 2)).join(', '),
      note: `ranges ${ratios.map((r) => `${round(Math.min(...r), 2)}–${round(Math.max(...r), 2)}`).join(', ')}`,
    });
  } finally {
    await sim.close();
  }
  return rows;
}
