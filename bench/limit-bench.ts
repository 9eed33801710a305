import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { SlowDmsProfile } from '../tools/paperless-sim/slow-dms.js';
import type { Simulator } from '../tools/paperless-sim/simulator.js';
import { BENCH_RULES } from './fixtures.js';
import { runJob } from './job-bench.js';
import { withRig } from './service-process.js';
import { round, type Row } from './stats.js';

/**
 * Pages through every document from a second process, as the service would (`parallel` requests at once:
 * bare-read.ts); seconds of wall time.
 */
export async function bareRead(sim: Simulator, pageSize = 1000, parallel = 1): Promise<number> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', path.join('bench', 'bare-read.ts'), sim.url, sim.token, String(pageSize), String(parallel)],
    { encoding: 'utf8' },
  );
  const read = JSON.parse(stdout) as { seconds: number; documents: number };
  if (read.documents !== sim.store.documents.size)
    throw new Error(`bare read saw ${read.documents} of ${sim.store.documents.size} documents`);
  return read.seconds;
}

const n = (x: number) => x.toLocaleString('en');

/**
 * Run-all against its physical limit, the bare paged read of the same dms: dry run and real run over
 * unchanged documents, as ratios. On the slow profile also against the dms's own time: the worker time
 * its answers took, spread over its workers (the least any client could wait for the same requests).
 */
export async function benchLimit(
  size: number,
  profile: SlowDmsProfile | null,
  options: { env?: Record<string, string>; label?: string; real?: boolean; nodeArgs?: string[] } = {},
): Promise<Row[]> {
  const dms = profile
    ? `slow dms (${profile.latencyMs} ms + ${profile.perDocumentMs} ms/doc, ${profile.workers} workers)`
    : 'fast dms';
  const name = `${n(size)} docs, ${dms}${options.label ?? ''}`;
  return withRig(
    {
      generate: { count: size, seed: 7 },
      files: { 'bench.yml': BENCH_RULES },
      slow: profile ?? undefined,
      env: options.env,
      nodeArgs: options.nodeArgs,
    },
    async ({ sim, service }) => {
      const rows: Row[] = [];
      // The fast read takes a fraction of a second: best of three, as for the jobs below.
      const bare = profile
        ? await bareRead(sim)
        : Math.min(await bareRead(sim), await bareRead(sim), await bareRead(sim));
      rows.push({
        measure: `${name}: bare paged read`,
        value: `${round(bare, 2)} s`,
        note: 'GET /api/documents/?page_size=1000 until next is null',
      });
      const measure = async (mode: string, dryRun: boolean, record: boolean) => {
        sim.slow?.resetBusy();
        const cpu = service.cpuSeconds();
        const mainCpu = service.mainThreadCpuSeconds();
        const dmsCpu = process.cpuUsage();
        const { jobSeconds, event } = await runJob(service, dryRun);
        const usedByDms = process.cpuUsage(dmsCpu);
        if (!record) return;
        const own = sim.slow ? sim.slow.busyMs() / 1000 / (profile as SlowDmsProfile).workers : null;
        const note = `${round(jobSeconds, 2)} s for ${event.processed} docs, ${event.changed} changed; CPU service (its main thread) / dms ${round(service.cpuSeconds() - cpu, 1)} (${round(service.mainThreadCpuSeconds() - mainCpu, 2)}) / ${round((usedByDms.user + usedByDms.system) / 1e6, 1)} s`;
        rows.push({ measure: `${name}: ${mode} / bare read`, value: `${round(jobSeconds / bare, 2)}×`, note });
        if (own !== null)
          rows.push({
            measure: `${name}: ${mode} / dms's own time`,
            value: `${round(jobSeconds / own, 2)}×`,
            note: `dms worker time ${round(own * (profile as SlowDmsProfile).workers, 1)} s over ${(profile as SlowDmsProfile).workers} workers = ${round(own, 2)} s`,
          });
      };
      // The first job after start runs on cold code (the worker threads' JIT included): measured apart.
      if (!profile) await measure('dry run, first after start', true, true);
      await measure('dry run', true, true);
      if (options.real !== false) {
        await measure('real (changing)', false, false);
        await measure('real, unchanged', false, true);
      }
      return rows;
    },
  );
}
