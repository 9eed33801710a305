import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BENCH_RULES } from './fixtures.js';
import { countUnfinished, webhookLoad } from './latency-bench.js';
import { fsyncFloor } from './fsync-floor.js';
import type { Simulator } from '../tools/paperless-sim/simulator.js';
import { api, withRig } from './service-process.js';
import { percentile, round, type Row } from './stats.js';

/**
 * Webhook acceptance of this build against another checkout's build (`--baseline <dir>`, built with
 * `npm run build` there), in alternating rounds within one run, so both see the same machine load.
 */
export async function benchWebhookBaseline(baselineRoot: string, rounds = 3, rate = 200, seconds = 5): Promise<Row[]> {
  const runs: Record<'baseline' | 'this build', Array<{ p50: number; p99: number; lost: number }>> = {
    baseline: [],
    'this build': [],
  };
  for (let round_ = 0; round_ < rounds; round_++) {
    for (const [label, root] of [
      ['baseline', baselineRoot],
      ['this build', process.cwd()],
    ] as const) {
      const setup = {
        generate: { count: 1000, seed: 11 },
        files: { 'bench.yml': BENCH_RULES },
        env: { SVC_WEBHOOK_DRY_RUN: 'true' },
        root,
      };
      runs[label].push(
        await withRig(setup, async ({ sim, service }) => {
          const load = await webhookLoad(service.url, [...sim.store.documents.keys()], rate, seconds);
          return { p50: load.p50, p99: load.p99, lost: await countUnfinished(service.url, load.eventIds) };
        }),
      );
    }
  }
  const median = (label: keyof typeof runs, key: 'p50' | 'p99') =>
    percentile(
      runs[label].map((r) => r[key]),
      50,
    );
  const rows: Row[] = (['baseline', 'this build'] as const).map((label) => ({
    measure: `webhook acceptance p50 / p99 at ${rate}/s, ${label}`,
    value: `${round(median(label, 'p50'))} / ${round(median(label, 'p99'))} ms`,
    note: `median of ${rounds} alternating rounds; p99 per round ${runs[label].map((r) => round(r.p99)).join(', ')} ms; never run: ${runs[label].map((r) => r.lost).join(', ')}`,
  }));
  rows.push({
    measure: 'this build ÷ baseline, p50 / p99',
    value: `${round(median('this build', 'p50') / median('baseline', 'p50'), 2)} / ${round(median('this build', 'p99') / median('baseline', 'p99'), 2)}`,
    note: baselineRoot,
  });
  return rows;
}

const WRITE_RULES = `rules:
  - id: mark
    on: [updated]
    actions:
      - add_tags: [rules-processed]
`;

/**
 * What the write journal costs a person's change: webhook to write (the tag on the document at the simulator)
 * of this build against another checkout's, `count` deliveries at `rate`/s, alternating rounds in one run.
 */
export async function benchWriteBaseline(baselineRoot: string, rounds = 3, rate = 10, count = 50): Promise<Row[]> {
  const runs: Record<'baseline' | 'this build', Array<{ p50: number; p99: number }>> = {
    baseline: [],
    'this build': [],
  };
  for (let r = 0; r < rounds; r++) {
    for (const [label, root] of [
      ['baseline', baselineRoot],
      ['this build', process.cwd()],
    ] as const) {
      runs[label].push(
        await withRig(
          { generate: { count, seed: 12 }, files: { 'mark.yml': WRITE_RULES }, root },
          async ({ sim, service }) => {
            const tag = sim.store.objects.tags.find((t) => t.name === 'rules-processed')?.id;
            if (tag === undefined) throw new Error('the simulator has no tag rules-processed for the rule to add');
            const docs = [...sim.store.documents.keys()].filter((d) => !sim.store.documents.get(d)?.tags.includes(tag));
            const times = await webhookToWrite(sim, service.url, docs.slice(0, count), tag, rate);
            return { p50: percentile(times, 50), p99: percentile(times, 99) };
          },
        ),
      );
    }
  }
  const median = (label: keyof typeof runs, key: 'p50' | 'p99') =>
    percentile(
      runs[label].map((x) => x[key]),
      50,
    );
  const rows: Row[] = (['baseline', 'this build'] as const).map((label) => ({
    measure: `webhook to write p50 / p99 at ${rate}/s, ${label}`,
    value: `${round(median(label, 'p50'))} / ${round(median(label, 'p99'))} ms`,
    note: `median of ${rounds} alternating rounds of ${count} deliveries (a tag added), fast dms; load ${os.loadavg()[0].toFixed(1)}`,
  }));
  rows.push({
    measure: 'webhook to write, this build ÷ baseline, p50 / p99',
    value: `${round(median('this build', 'p50') / median('baseline', 'p50'), 2)} / ${round(median('this build', 'p99') / median('baseline', 'p99'), 2)}`,
    note: baselineRoot,
  });
  return rows;
}

/** A delivery that wrote nothing by then (a failed run, a missing tag) fails the bench instead of holding it. */
const WRITE_DEADLINE_MS = 120_000;

/** Sends one "Document Updated" delivery per document at `rate`/s; resolves with each one's time until the tag shows. */
async function webhookToWrite(
  sim: Simulator,
  url: string,
  docs: number[],
  tag: number,
  rate: number,
): Promise<number[]> {
  const sentAt = new Map<number, number>();
  const took = new Map<number, number>();
  const started = performance.now();
  const done = new Promise<void>((resolve, reject) => {
    const look = () => {
      const now = performance.now();
      for (const [doc, t0] of sentAt)
        if (!took.has(doc) && sim.store.documents.get(doc)?.tags.includes(tag)) took.set(doc, now - t0);
      if (took.size === docs.length) resolve();
      else if (now - started > WRITE_DEADLINE_MS) {
        const missing = docs.filter((d) => !took.has(d));
        reject(new Error(`no tag written after ${WRITE_DEADLINE_MS / 1000} s on documents ${missing.join(', ')}`));
      } else setTimeout(look, 2);
    };
    look();
  });
  for (const [i, doc] of docs.entries()) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    sentAt.set(doc, performance.now());
    void api(url, '/api/webhook/dms', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ event: 'document_updated', doc_id: String(doc) }),
    });
  }
  await done;
  return docs.map((d) => took.get(d) as number);
}

type EventStoreModule = typeof import('../server/history/event-store.js');

/** One delivery's life as the webhook service drives it: accepted (timed), then running, then done. */
async function acceptAtRate(
  store: Awaited<ReturnType<EventStoreModule['openEventStore']>>,
  rate: number,
  count: number,
): Promise<number[]> {
  const latencies: number[] = [];
  const started = performance.now();
  const pending: Array<Promise<void>> = [];
  for (let i = 0; i < count; i++) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(
      (async () => {
        const t0 = performance.now();
        const { event_id } = store.create({
          kind: 'webhook',
          rule_id: null,
          dry_run: true,
          document: i + 1,
          trigger: 'updated',
        });
        await store.flush();
        latencies.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 5));
        store.update(event_id, { status: 'running', started_at: new Date().toISOString(), total: 1 });
        await new Promise((r) => setTimeout(r, 5));
        store.update(event_id, { status: 'done', processed: 1, finished_at: new Date().toISOString() });
      })(),
    );
  }
  await Promise.all(pending);
  return latencies;
}

/**
 * The events store alone, old and new in this one process (the baseline checkout's `server/history/event-store.ts`
 * imported next to this one's), alternating rounds: what a webhook's "saved before the 202" costs, without HTTP.
 */
export async function benchEventStoreBaseline(
  baselineRoot: string,
  rounds = 3,
  rate = 200,
  count = 1000,
): Promise<Row[]> {
  const modules = {
    baseline: (await import(path.join(baselineRoot, 'server/history/event-store.ts'))) as EventStoreModule,
    'this build': await import('../server/history/event-store.js'),
  };
  const logger = { info: () => undefined, warn: () => undefined, error: (m: string) => console.error(m) };
  const results: Record<keyof typeof modules, number[][]> = { baseline: [], 'this build': [] };
  for (let r = 0; r < rounds; r++) {
    for (const label of ['baseline', 'this build'] as const) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-rules-store-bench-'));
      const store = await modules[label].openEventStore(dir, logger);
      results[label].push(await acceptAtRate(store, rate, count));
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  const floor = await fsyncFloor();
  const medianOf = (label: keyof typeof modules, p: number) =>
    percentile(
      results[label].map((l) => percentile(l, p)),
      50,
    );
  const rows: Row[] = (['baseline', 'this build'] as const).map((label) => ({
    measure: `events store: create + flush p50 / p99 at ${rate}/s, ${label}`,
    value: `${round(medianOf(label, 50), 2)} / ${round(medianOf(label, 99), 2)} ms`,
    note: `in this process; median of ${rounds} alternating rounds of ${count}; p99 per round ${results[label].map((l) => round(percentile(l, 99), 2)).join(', ')} ms`,
  }));
  rows.push({
    measure: 'one 400-byte append + fdatasync on this disk, p50 / p99',
    value: `${round(percentile(floor, 50), 2)} / ${round(percentile(floor, 99), 2)} ms`,
    note: 'the floor for "on disk before the 202": 200 in a row, measured after the rounds',
  });
  rows.push({
    measure: 'events store, this build ÷ baseline, p50 / p99',
    value: `${round(medianOf('this build', 50) / medianOf('baseline', 50), 2)} / ${round(medianOf('this build', 99) / medianOf('baseline', 99), 2)}`,
  });
  return rows;
}
