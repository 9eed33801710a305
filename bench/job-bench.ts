import { BENCH_RULE_ID, BENCH_RULES } from './fixtures.js';
import { api, withRig, type ServiceProcess } from './service-process.js';
import { round, type Row } from './stats.js';

interface EventRecord {
  status: string;
  started_at: string;
  finished_at: string;
  processed: number;
  matched: number;
  changed: number;
  errors: number;
}

/** Starts a run-all of the bench rule and waits for it; `jobSeconds` is the service's own start-to-finish time. */
export async function runJob(
  service: ServiceProcess,
  dryRun: boolean,
  ruleId = BENCH_RULE_ID,
): Promise<{ seconds: number; jobSeconds: number; event: EventRecord }> {
  const started = Date.now();
  const queued = await api<{ event_id: number }>(service.url, `/api/run?rule_id=${ruleId}&dry_run=${dryRun}`, {
    method: 'POST',
  });
  if (queued.status !== 200) throw new Error(`job did not start: ${queued.status} ${JSON.stringify(queued.body)}`);
  for (;;) {
    await new Promise((r) => setTimeout(r, 25));
    const { body } = await api<EventRecord>(service.url, `/api/events/${queued.body.event_id}`);
    if (!['queued', 'running'].includes(body.status)) {
      if (body.status !== 'done') throw new Error(`job ended ${body.status}: ${JSON.stringify(body)}`);
      const jobSeconds = (Date.parse(body.finished_at) - Date.parse(body.started_at)) / 1000;
      return { seconds: (Date.now() - started) / 1000, jobSeconds, event: body };
    }
  }
}

const totalRequests = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

/** Run-all throughput, dms requests per 1,000 documents and peak service memory at one corpus size. */
export async function benchJobs(size: number): Promise<Row[]> {
  const rows: Row[] = [];
  const n = (x: number) => x.toLocaleString('en');
  await withRig(
    { generate: { count: size, seed: 7 }, files: { 'bench.yml': BENCH_RULES } },
    async ({ sim, service }) => {
      const baseline = service.rssMiB();
      const measure = async (label: string, dryRun: boolean) => {
        sim.resetCounts();
        const serviceCpu = service.cpuSeconds();
        const dmsCpu = process.cpuUsage();
        const { seconds, event } = await runJob(service, dryRun);
        const usedByService = service.cpuSeconds() - serviceCpu;
        const used = process.cpuUsage(dmsCpu);
        const usedByDms = (used.user + used.system) / 1e6;
        const perThousand = (totalRequests(sim.counts()) / event.processed) * 1000;
        rows.push({
          measure: `${n(size)} docs, ${label}: throughput`,
          value: `${round(event.processed / seconds, 0)} docs/s`,
          note: `${event.processed} processed, ${event.matched} matched, ${event.changed} changed, ${event.errors} errors in ${round(seconds, 1)} s`,
        });
        rows.push({
          measure: `${n(size)} docs, ${label}: dms requests / 1,000 docs`,
          value: round(perThousand, 1),
          note: JSON.stringify(sim.counts()),
        });
        rows.push({
          measure: `${n(size)} docs, ${label}: CPU service / dms`,
          value: `${round(usedByService, 1)} / ${round(usedByDms, 1)} s`,
          note: `ratio ${round(usedByService / usedByDms, 2)}; wall ${round(seconds, 1)} s on 2 cores`,
        });
      };
      await measure('dry run', true);
      await measure('real, changing', false);
      await measure('real, unchanged (second run)', false);
      rows.push({
        measure: `${n(size)} docs: service peak RSS`,
        value: `${round(service.peakRssMiB(), 0)} MiB`,
        note: `idle after start ${round(baseline, 0)} MiB`,
      });
    },
  );
  return rows;
}

// Every document asks how many other documents its correspondent has: a question per document, answered once per
// distinct correspondent for the whole job.
const QUERY_RULES = `rules:
  - id: bench-query
    extract:
      peers: { query: count, default: 0, where: { correspondent: "{{ doc.correspondent }}" } }
    when: { check: "peers > 1000000" }
    actions:
      - add_tags: Viele
`;

/** A dry job whose rule asks the dms about other documents: dms requests per 1,000 documents, the queries' share. */
export async function benchQueryJob(size: number): Promise<Row[]> {
  return withRig(
    { generate: { count: size, seed: 7 }, files: { 'query.yml': QUERY_RULES } },
    async ({ sim, service }) => {
      sim.resetCounts();
      const { event } = await runJob(service, true, 'bench-query');
      const counts = sim.counts();
      const total = totalRequests(counts);
      // The job's own scan reads pages; each question is a one-page list with the correspondent's filter.
      const lists = counts['GET /api/documents/'] ?? 0;
      return [
        {
          measure: `${size.toLocaleString('en')} docs, dry run of a rule with a query: dms requests / 1,000 docs`,
          value: round((total / event.processed) * 1000, 1),
          note: `${event.processed} processed, ${total} requests (${lists} document lists, the job's pages included): ${JSON.stringify(counts)}`,
        },
      ];
    },
  );
}

/** Live memory, not garbage: the largest corpus run with the service's heap capped far below its size. */
export async function benchHeapCap(size: number, heapMiB: number): Promise<Row[]> {
  const setup = {
    generate: { count: size, seed: 7 },
    files: { 'bench.yml': BENCH_RULES },
    env: { NODE_OPTIONS: `--max-old-space-size=${heapMiB}` },
  };
  return withRig(setup, async ({ sim, service }) => {
    const { seconds, event } = await runJob(service, true).catch((err: unknown) => {
      throw new Error(`the heap-capped job failed (${String(err)}); the service said:\n${service.stderrTail()}`);
    });
    return [
      {
        measure: `${size.toLocaleString('en')} docs, dry run, heap capped at ${heapMiB} MiB`,
        value: event.processed === sim.store.documents.size ? 'completed' : `stopped at ${event.processed}`,
        note: `${event.processed} processed in ${round(seconds, 1)} s, peak RSS ${round(service.peakRssMiB(), 0)} MiB`,
      },
    ];
  });
}
