// The `burst` part: webhook deliveries against the slow dms profile, as a bulk edit in Paperless sends them.
import { createSemaphore } from '../server/dms/semaphore.js';
import { SLOW_DMS } from '../tools/paperless-sim/slow-dms.js';
import type { Simulator } from '../tools/paperless-sim/simulator.js';
import { heapSnapshotArgs, takeHeapSnapshot } from './heap-snapshots.js';
import { api, BENCH_TOKEN, withRig, type ServiceProcess } from './service-process.js';
import { percentile, round, type Row } from './stats.js';

const RULES = `rules:
  - id: burst-mark
    on: [updated]
    actions:
      - add_tags: [rules-processed]
  - id: job-mark
    on: [manual]
    actions:
      - add_tags: [Steuer]
`;

const ONE = 10;
const RATE = 100;
const BULK = 500;
const LARGE = 10_000;
/** A Paperless user other than the service's own. */
const PERSON = 'ben';

/**
 * `BENCH_HEAP_SNAPSHOTS=<dir>`: the service writes heap snapshots there before each bulk edit, when half of it is
 * written and once every delivery ended (`npx tsx bench/heap-summary.ts` reads them). A snapshot stops the service
 * for seconds and takes memory of its own: the times and RSS of such a run are not the bench's figures.
 */
const SNAPSHOTS = process.env.BENCH_HEAP_SNAPSHOTS;
/** `BENCH_SERVICE_NODE_ARGS`: more flags for the service (e.g. `--trace-gc`, its output kept by `BENCH_SERVICE_STDOUT`). */
const nodeArgs = [
  ...(SNAPSHOTS ? heapSnapshotArgs(SNAPSHOTS) : []),
  ...(process.env.BENCH_SERVICE_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
];

const tagId = (sim: Simulator, name: string) => {
  const tag = sim.store.objects.tags.find((t) => t.name === name);
  if (!tag) throw new Error(`no tag ${name}`);
  return tag.id;
};

/**
 * Paperless sends each delivery from a Celery worker: a few sends in flight at once, the rest queued; a retry is
 * re-queued with its countdown and holds no worker while it waits. Firing every delivery of a burst at once from
 * this process (which also runs the simulator) measured the bench's own event loop and connection pool instead
 * of the service: the 202s took seconds here while the service answered them in milliseconds.
 */
const SENDERS = 4;
const senders = createSemaphore(SENDERS);
/** The time each answer took, from its send to its whole response (collected per bulk edit). */
let accepted: number[] = [];

/** One delivery, retried as Paperless's send_webhook does: 3 more tries after about 1, 2 and 4 s, then dropped. */
async function deliver(url: string, doc: number): Promise<{ refused: number; dropped: boolean }> {
  let refused = 0;
  for (let attempt = 0; attempt < 4; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 1000 * 2 ** (attempt - 1)));
    const ok = await senders.run(() => {
      const sent = performance.now();
      return fetch(`${url}/api/webhook/dms`, {
        method: 'POST',
        headers: { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ event: 'document_updated', doc_id: String(doc) }),
      }).then(
        async (res) => {
          await res.arrayBuffer();
          accepted.push(performance.now() - sent);
          return res.status === 202;
        },
        () => false,
      );
    });
    if (ok) return { refused, dropped: false };
    refused++;
  }
  return { refused, dropped: true };
}

/** Resolves with the time (ms since `since`) each document first carries the tag; polls the simulator's store. */
function writtenTimes(
  sim: Simulator,
  docs: number[],
  tag: number,
  since: number,
  onHalf?: () => Promise<unknown>,
): Promise<number[]> {
  const times = new Map<number, number>();
  const left = new Set(docs);
  // A few milliseconds' precision is plenty for thousands of documents, and the simulator shares this process.
  const every = docs.length > 1000 ? 50 : 5;
  return new Promise((resolve) => {
    const look = () => {
      const now = performance.now();
      for (const doc of left)
        if (sim.store.documents.get(doc)?.tags.includes(tag)) {
          times.set(doc, now - since);
          left.delete(doc);
        }
      if (left.size === 0) resolve(docs.map((d) => times.get(d) as number));
      else if (onHalf && left.size <= docs.length / 2) {
        const half = onHalf;
        onHalf = undefined;
        void half().then(look);
      } else setTimeout(look, every);
    };
    look();
  });
}

/** Until no delivery waits or runs (health's `arrival.waiting`): every delivery's event ended. */
async function deliveriesEnded(url: string): Promise<void> {
  for (;;) {
    const health = await api<{ arrival?: { waiting: number } }>(url, '/api/health');
    if (health.body.arrival?.waiting === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface BulkEdit {
  rows: Row[];
  /** The run-all job's time, scaled to the bulk edit's documents (ms). */
  jobMs: number;
  /** Peak RSS during the burst minus RSS before it (MiB). */
  growth: number;
}

const mib = (values: number[]) => `${values.map((v) => round(v, 0)).join(' / ')} MiB`;

/**
 * A bulk edit in Paperless: one delivery per document within `spreadMs`, each retried like send_webhook; then a
 * run-all job (real) over the whole archive, its time per document scaled to the bulk edit's size. The service's
 * memory is measured through the burst (until every delivery ended) and through the job apart.
 */
async function bulkEdit(
  sim: Simulator,
  service: ServiceProcess,
  bulk: number[],
  tag: number,
  spreadMs: number,
  // A second bulk edit of the same documents compares with the first one's job: a job run again writes nothing.
  earlierJob?: BulkEdit,
): Promise<BulkEdit> {
  const { url } = service;
  const snapshot = (label: string) =>
    SNAPSHOTS ? takeHeapSnapshot(SNAPSHOTS, service.pid, url, `burst-${bulk.length}-${label}`) : Promise.resolve();
  accepted = [];
  await snapshot('before');
  const rssBefore = service.rssMiB();
  service.resetPeak();
  const start = performance.now();
  const allWritten = writtenTimes(sim, bulk, tag, start, SNAPSHOTS ? () => snapshot('half') : undefined);
  const sent = bulk.map(async (doc, i) => {
    await new Promise((resolve) => setTimeout(resolve, Math.floor((i * spreadMs) / bulk.length)));
    return deliver(url, doc);
  });
  const outcomes = await Promise.all(sent);
  const bulkMs = Math.max(...(await allWritten));
  await deliveriesEnded(url);
  const burstPeak = service.peakRssMiB();
  const rssAfter = service.rssMiB();
  await snapshot('after');
  const refused = outcomes.reduce((n, o) => n + o.refused, 0);
  const dropped = outcomes.filter((o) => o.dropped).length;
  const answered = [percentile(accepted, 50), percentile(accepted, 99)].map((ms) => round(ms, 0));

  const job = earlierJob ? null : await runAllJob(service, sim, bulk.length);
  const jobMs = job?.jobMs ?? (earlierJob as BulkEdit).jobMs;
  const n = bulk.length;
  const rows: Row[] = [
    { measure: `bulk edit of ${n}: deliveries refused / dropped`, value: `${refused} / ${dropped}` },
    {
      measure: `bulk edit of ${n}: delivery answered in p50 / p99`,
      value: `${answered[0]} / ${answered[1]} ms`,
      note: `${SENDERS} senders at a time`,
    },
    {
      measure: `bulk edit of ${n}: all written / run-all job for as many documents`,
      value: `${round(bulkMs / jobMs, 2)}×`,
      note: `${round(bulkMs / 1000, 1)} s; job ${round(jobMs / 1000, 1)} s per ${n} (${sim.store.documents.size} documents run${earlierJob ? ', the first bulk edit’s job' : ''})`,
    },
    {
      measure: `bulk edit of ${n}: service RSS before / peak / after the burst`,
      value: mib([rssBefore, burstPeak, rssAfter]),
      note: `peak +${round(burstPeak - rssBefore, 0)} MiB; until every delivery ended${SNAPSHOTS ? '; heap snapshots taken' : ''}`,
    },
    ...(job
      ? [
          {
            measure: `bulk edit of ${n}: service RSS before / peak / after the job`,
            value: mib(job.rss),
            note: `the run-all job over ${sim.store.documents.size} documents, after the burst`,
          },
        ]
      : []),
  ];
  return { rows, jobMs, growth: burstPeak - rssBefore };
}

/** A real run-all job over the whole archive: its time scaled to `n` documents, and the service's RSS around it. */
async function runAllJob(
  service: ServiceProcess,
  sim: Simulator,
  n: number,
): Promise<{ jobMs: number; rss: number[] }> {
  const { url } = service;
  const before = service.rssMiB();
  service.resetPeak();
  const start = performance.now();
  const job = await api<{ event_id: number }>(url, '/api/run?rule_id=job-mark&dry_run=false', { method: 'POST' });
  for (;;) {
    const event = await api<{ status: string }>(url, `/api/events/${job.body.event_id}`);
    if (['done', 'failed', 'cancelled', 'interrupted'].includes(event.body.status)) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const jobMs = ((performance.now() - start) * n) / sim.store.documents.size;
  return { jobMs, rss: [before, service.peakRssMiB(), service.rssMiB()] };
}

/**
 * A bulk edit of 10,000 documents (deliveries within 5 s); then a person takes the tag off them all and a second
 * bulk edit of the same documents follows. Memory that bursts leave behind grows again in the second; memory a
 * burst needs once (V8's heap sized for it, the records kept per document) does not.
 */
async function benchLargeBulk(): Promise<{ first: BulkEdit; second: BulkEdit }> {
  return withRig(
    { generate: { count: LARGE, seed: 12 }, files: { 'burst.yml': RULES }, slow: SLOW_DMS, nodeArgs },
    async ({ sim, service }) => {
      const tag = tagId(sim, 'rules-processed');
      const ids = [...sim.store.documents.keys()].filter((id) => !sim.store.documents.get(id)?.tags.includes(tag));
      const docs = ids.slice(0, LARGE);
      const first = await bulkEdit(sim, service, docs, tag, 5000);
      for (const id of docs) {
        const tags = sim.store.documents.get(id)?.tags.filter((t) => t !== tag) ?? [];
        sim.editAs(id, { tags }, PERSON, { webhook: false });
      }
      const second = await bulkEdit(sim, service, docs, tag, 5000, first);
      return {
        first,
        second: { ...second, rows: second.rows.map((row) => ({ ...row, measure: `again: ${row.measure}` })) },
      };
    },
  );
}

export async function benchBurst(): Promise<Row[]> {
  const small = await benchSmallBursts();
  const { first: large, second: again } = await benchLargeBulk();
  return [
    ...small.rows,
    ...large.rows,
    ...again.rows,
    {
      measure: `service RSS growth in the burst, ${LARGE} / ${BULK} deliveries`,
      value: `${round(large.growth / small.growth, 2)}×`,
      note: `+${round(large.growth, 0)} / +${round(small.growth, 0)} MiB (peak during the burst over RSS before it)`,
    },
    {
      measure: `service RSS growth in a second burst of the same ${LARGE} documents`,
      value: `+${round(again.growth, 0)} MiB`,
      note: `first +${round(large.growth, 0)} MiB; what bursts leave behind would grow again here`,
    },
  ];
}

/** One document, 20 deliveries a second and a bulk edit of 500, against one simulator. */
async function benchSmallBursts(): Promise<BulkEdit> {
  const count = ONE + RATE + BULK;
  return withRig(
    { generate: { count, seed: 11 }, files: { 'burst.yml': RULES }, slow: SLOW_DMS, nodeArgs },
    async ({ sim, service }) => {
      const tag = tagId(sim, 'rules-processed');
      const ids = [...sim.store.documents.keys()].filter((id) => !sim.store.documents.get(id)?.tags.includes(tag));
      const [one, rate, bulk] = [ids.slice(0, ONE), ids.slice(ONE, ONE + RATE), ids.slice(ONE + RATE, count)];

      // One document at a time: webhook to write.
      const single: number[] = [];
      for (const doc of one) {
        const start = performance.now();
        const written = writtenTimes(sim, [doc], tag, start);
        await deliver(service.url, doc);
        single.push((await written)[0]);
      }
      const t1 = percentile(single, 50);

      // 20 deliveries a second, each its own document.
      const perDelivery: Promise<number>[] = [];
      for (const [i, doc] of rate.entries()) {
        await new Promise((resolve) => setTimeout(resolve, i === 0 ? 0 : 50));
        const start = performance.now();
        perDelivery.push(writtenTimes(sim, [doc], tag, start).then((t) => t[0]));
        void deliver(service.url, doc);
      }
      const at20 = await Promise.all(perDelivery);

      const bulkEdit500 = await bulkEdit(sim, service, bulk, tag, 1000);

      const rows: Row[] = [
        { measure: 'one document, webhook to write (p50)', value: `${round(t1, 0)} ms`, note: `${ONE} deliveries` },
        {
          measure: '20 deliveries/s, webhook to write p50 / one-document time',
          value: `${round(percentile(at20, 50) / t1, 2)}×`,
          note: `${round(percentile(at20, 50), 0)} ms, ${RATE} deliveries`,
        },
        {
          measure: '20 deliveries/s, webhook to write p99 / one-document time',
          value: `${round(percentile(at20, 99) / t1, 2)}×`,
          note: `${round(percentile(at20, 99), 0)} ms`,
        },
        ...bulkEdit500.rows,
      ];
      return { ...bulkEdit500, rows };
    },
  );
}
