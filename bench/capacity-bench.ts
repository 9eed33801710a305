import os from 'node:os';
import { SLOW_DMS, type SlowDmsProfile } from '../tools/paperless-sim/slow-dms.js';
import { startSimulator, type Simulator } from '../tools/paperless-sim/simulator.js';
import { BENCH_RULES, rulesDirWith, tempDir } from './fixtures.js';
import { runJob } from './job-bench.js';
import { bareRead } from './limit-bench.js';
import { startService, type ServiceProcess } from './service-process.js';
import { percentile, round, type Row } from './stats.js';

// Run-all against the dms's capacity, i.e. the same dms's own time for reading every document once
// at its best page size. Slow profile: computed from its pacing (worker time of that read over its workers);
// fast realistic profile: the best of bare paged reads at several page sizes from a second process. The slow
// profile also prints what a bare client actually gets from it (`plainParallelRead`) and each job against that.

/** Paperless's largest page (`StandardPagination.max_page_size`). */
const MAX_PAGE = 100_000;
const FAST_PAGE_SIZES = [100, 1000, 10_000];

export type CapacityProfile = 'slow' | 'slow-one-worker' | 'fast-realistic';

/** The slow profiles: the bench's small host, and the same with one web worker (Paperless's default). */
const SLOW_PROFILES: Partial<Record<CapacityProfile, SlowDmsProfile>> = {
  slow: SLOW_DMS,
  'slow-one-worker': { ...SLOW_DMS, workers: 1 },
};

const load = () => os.loadavg()[0].toFixed(1);
const n = (x: number) => x.toLocaleString('en');

/** The least time a client could wait for every document once: the slow dms's worker time at the largest page. */
function slowCapacity(profile: SlowDmsProfile, documents: number): number {
  const pages = Math.ceil(documents / MAX_PAGE);
  return (pages * profile.latencyMs + documents * profile.perDocumentMs) / profile.workers / 1000;
}

/** Pages a bare read of a slow dms asks for at once are at most this large (memory for the simulator and the reader). */
const PLAIN_READ_MAX_PAGE = 2500;

/**
 * What a plain client gets from a slow dms: as many requests at once as it has workers, each sent once the last page
 * was parsed, the count known beforehand, the best of a few page sizes (a worker's share of the documents, a half and
 * a quarter of it, at most PLAIN_READ_MAX_PAGE). Beside the computed capacity, which no client reaches: the requests'
 * own cost is spread over the workers there, and the pages' transfer and parsing count for nothing. (The service
 * sends a request as soon as an answer begins, so on large reads it beats this client.)
 */
async function plainParallelRead(sim: Simulator, workers: number): Promise<{ seconds: number; pageSize: number }> {
  const documents = sim.store.documents.size;
  const share = Math.ceil(documents / workers);
  const sizes = [share, Math.ceil(share / 2), Math.ceil(share / 4)].map((s) => Math.min(PLAIN_READ_MAX_PAGE, s));
  return bestBareRead(sim, [...new Set(sizes)], workers, documents > 2000 ? 1 : 2);
}

/** The quickest of bare reads at each page size (`tries` each), with the page size that gave it. */
async function bestBareRead(
  sim: Simulator,
  pageSizes: number[],
  parallel = 1,
  tries = 1,
): Promise<{ seconds: number; pageSize: number }> {
  let best = { seconds: Infinity, pageSize: 0 };
  for (const pageSize of pageSizes)
    for (let left = tries; left > 0; left--) {
      const seconds = await bareRead(sim, pageSize, parallel);
      if (seconds < best.seconds) best = { seconds, pageSize };
    }
  return best;
}

const WRITES = /^(PATCH|PUT|POST|DELETE) /;
const sum = (counts: Record<string, number>, only?: RegExp) =>
  Object.entries(counts).reduce((a, [key, v]) => a + (only && !only.test(key) ? 0 : v), 0);

/** Worker time left idle between `from` and `to` (ms × workers), from the requests' busy intervals. */
function idleBetween(busy: Array<{ started: number; answered: number }>, workers: number, from: number, to: number) {
  const overlap = busy.reduce((sum, t) => sum + Math.max(0, Math.min(t.answered, to) - Math.max(t.started, from)), 0);
  return Math.max(0, workers * Math.max(0, to - from) - overlap);
}

/**
 * Where a slow-profile job's wall time went beyond the dms's work: the share of the dms's worker time left idle
 * between the job's first document request and its last answer (pages not asked for while the service worked),
 * split into the first round (until as many answers as workers came), the middle and the last round (from the
 * last request's start), each as a share of capacity; and the time from the last answer to the job's end
 * (evaluating and recording what came last).
 */
function readTimeline(
  sim: Simulator,
  workers: number,
  capacityMs: number,
  event: { started_at: string; finished_at: string },
): string {
  const started = Date.parse(event.started_at);
  const finished = Date.parse(event.finished_at);
  // The job's document reads; not the health ping (an empty `id__in=0` page) that may land among them.
  const reads = sim
    .requestTimes()
    .filter(
      (t) =>
        t.request.startsWith('GET /api/documents/?') &&
        !t.request.includes('id__in=0&') &&
        !t.request.endsWith('id__in=0') &&
        t.arrived >= started - 1 &&
        t.arrived <= finished,
    );
  if (reads.length === 0) return '';
  const first = Math.min(...reads.map((t) => t.started));
  const last = Math.max(...reads.map((t) => t.answered));
  const lastStart = Math.max(...reads.map((t) => t.started));
  const firstRound = reads.map((t) => t.answered).sort((a, b) => a - b)[Math.min(workers, reads.length) - 1];
  const idle = idleBetween(reads, workers, first, last) / (workers * Math.max(1, last - first));
  const share = (from: number, to: number) =>
    round(idleBetween(reads, workers, from, Math.max(from, to)) / workers / capacityMs, 3);
  const tail = (finished - last) / 1000;
  // What a person's click in Paperless would wait behind: the job's pages waiting for a worker.
  const waits = reads.map((t) => (t.started - t.arrived) / 1000);
  return (
    `; dms workers idle ${round(idle * 100, 0)} % of the read (first round ${share(first, firstRound)}×, middle ` +
    `${share(firstRound, lastStart)}×, last round ${share(lastStart, last)}× of capacity), ${round(tail, 2)} s after its last answer` +
    `; pages waited in the dms's queue ${round(percentile(waits, 50), 2)} s (median), ${round(Math.max(...waits), 2)} s at most`
  );
}

/** Documents read back whole by id (`id__in` without `fields`, as the echo ledger reads what it wrote). */
const readBack = (requests: string[]) =>
  new Set(
    requests
      .map((r) => new URL(r.split(' ')[1], 'http://sim').searchParams)
      .flatMap((p) => (p.has('fields') ? [] : (p.get('id__in')?.split(',') ?? []))),
  ).size;

/**
 * Waits (at most 30 s) until the service read back the `changed` documents the last job wrote, so that those reads
 * are not counted as the next job's: after a changing run it reads each written document once, to know its echoes.
 */
async function readBackDone(sim: Simulator, changed: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (readBack(sim.requests()) < changed && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
}

/** The service of `root`'s build (this checkout's by default) on `sim`, with the bench's rules and a data dir. */
export function startRigService(
  sim: Simulator,
  rulesDir: string,
  dataDir: string,
  nodeArgs: string[] = [],
  root = process.cwd(),
) {
  return startService(
    root,
    { SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token, SVC_RULES_DIR: rulesDir, SVC_DATA_DIR: dataDir },
    nodeArgs,
  );
}

/**
 * One profile at one size, in one run: cold (first job after start) and warm dry runs, then a changing real
 * run, a warm unchanged real run, and (after a restart of the service) a cold unchanged real run, each as a
 * ratio to the dms's capacity, with requests per 1,000 documents and the service's CPU per document.
 */
export async function benchCapacity(
  size: number,
  kind: CapacityProfile,
  options: { nodeArgs?: string[] } = {},
): Promise<Row[]> {
  const profile = SLOW_PROFILES[kind];
  const sim = await startSimulator({
    seedDocuments: true,
    generate: { count: size, seed: 7, realistic: true },
    slow: profile,
  });
  const rows: Row[] = [];
  const label = profile
    ? `slow dms (${profile.latencyMs} ms + ${profile.perDocumentMs} ms/doc, ${profile.workers} worker${profile.workers > 1 ? 's' : ''})`
    : 'fast dms, realistic documents';
  const name = `${n(size)} docs, ${label}`;
  try {
    const documents = sim.store.documents.size;
    const capacity = profile
      ? { seconds: slowCapacity(profile, documents), pageSize: Math.min(documents, MAX_PAGE) }
      : await bestBareRead(sim, FAST_PAGE_SIZES);
    rows.push({
      measure: `${name}: the dms's capacity`,
      value: `${round(capacity.seconds, 2)} s`,
      note: `${profile ? 'worker time of' : 'best bare read,'} every document once at page size ${n(capacity.pageSize)} (load ${load()})`,
    });
    const plainRead = profile ? await plainParallelRead(sim, profile.workers) : null;
    if (profile && plainRead !== null)
      rows.push({
        measure: `${name}: a plain parallel read / capacity`,
        value: `${round(plainRead.seconds / capacity.seconds, 2)}×`,
        note: `${round(plainRead.seconds, 2)} s: a bare client, ${profile.workers > 1 ? `${profile.workers} requests at once, each sent once the last page was parsed, the count known beforehand` : 'one request at a time'}, best with pages of ${n(plainRead.pageSize)} (load ${load()})`,
      });
    const rulesDir = rulesDirWith({ 'bench.yml': BENCH_RULES });
    const dataDir = tempDir('data');
    const nodeArgs = options.nodeArgs ?? [];
    // What the service asks of the dms while it starts (the health ping, the vocabulary read into its cache),
    // printed beside the cold job it serves: "cold" counts the job from its start, as a person would start it.
    let startup = '';
    const start = async () => {
      sim.resetCounts();
      sim.slow?.resetBusy();
      const started = await startRigService(sim, rulesDir, dataDir, nodeArgs);
      const own = profile && sim.slow ? sim.slow.busyMs() / 1000 / profile.workers : null;
      startup = `; start-up before it: ${sum(sim.counts())} requests${own === null ? '' : `, dms's own time ${round(own / capacity.seconds, 2)}× capacity`}`;
      return started;
    };
    const measure = async (service: ServiceProcess, mode: string, dryRun: boolean, record = true) => {
      sim.resetCounts();
      sim.slow?.resetBusy();
      const cpu = service.cpuSeconds();
      const { jobSeconds, event } = await runJob(service, dryRun);
      const used = service.cpuSeconds() - cpu;
      if (!record) return event;
      const counts = sim.counts();
      const requests = sum(counts);
      const writes = sum(counts, WRITES);
      // On the slow profile, the dms's worker time for this job over its workers: what the job's requests and
      // rows cost the dms, whatever the machine's load did to the service's own CPU time.
      const dmsOwn = profile && sim.slow ? sim.slow.busyMs() / 1000 / profile.workers : null;
      const dmsNote =
        dmsOwn === null || !profile
          ? ''
          : `; dms's own time for it ${round(dmsOwn / capacity.seconds, 2)}× capacity${readTimeline(sim, profile.workers, capacity.seconds * 1000, event)}`;
      rows.push({
        measure: `${name}: ${mode} / capacity`,
        value: `${round(jobSeconds / capacity.seconds, 2)}×`,
        note:
          `${round(jobSeconds, 2)} s, ${event.processed} docs, ${event.changed} changed; ${round((requests / event.processed) * 1000, 1)} requests / 1,000 docs` +
          `${dryRun ? '' : `, ${writes} writes`}; service CPU ${round((used / event.processed) * 1e6, 0)} µs/doc${plainRead === null ? '' : `; ${round(jobSeconds / plainRead.seconds, 2)}× a plain parallel read`}${dmsNote}${mode.includes('cold') ? startup : ''}; load ${load()}`,
      });
    };
    let service = await start();
    try {
      await measure(service, 'dry run, cold (first job after start)', true);
      await measure(service, 'dry run, warm', true);
      const changing = await measure(service, 'real (changing)', false, false);
      await readBackDone(sim, changing?.changed ?? 0);
      await measure(service, 'real, unchanged, warm', false);
    } finally {
      await service.stop();
    }
    service = await start();
    try {
      await measure(service, 'real, unchanged, cold (first job after start)', false);
    } finally {
      await service.stop();
    }
  } finally {
    await sim.close();
  }
  return rows;
}
