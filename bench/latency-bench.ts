import { execFile } from 'node:child_process';
import os from 'node:os';
import { promisify } from 'node:util';
import path from 'node:path';
import { BENCH_RULE_ID, BENCH_RULES, manyRuleFiles } from './fixtures.js';
import { api, BENCH_TOKEN, withRig, type BenchRig } from './service-process.js';
import { percentile, round, timed, type Row } from './stats.js';
import { fsyncFloor } from './fsync-floor.js';

/** Single-document run latency, webhook acceptance under load, and /api/traces with a full history. */
export async function benchLatency(): Promise<Row[]> {
  const setup = {
    generate: { count: 1000, seed: 11 },
    files: { 'bench.yml': BENCH_RULES },
    env: { SVC_WEBHOOK_DRY_RUN: 'true' },
  };
  return withRig(setup, async ({ sim, service }) => {
    const rows: Row[] = [];
    const ids = [...sim.store.documents.keys()];
    const runs: number[] = [];
    for (let i = 0; i < 300; i++) {
      const { ms, value } = await timed(() =>
        api(service.url, `/api/run?document=${ids[i % ids.length]}&rule_id=${BENCH_RULE_ID}`, { method: 'POST' }),
      );
      if (value.status !== 200) throw new Error(`run failed: ${value.status} ${JSON.stringify(value.body)}`);
      runs.push(ms);
    }
    rows.push({
      measure: 'single-document dry run latency p50 / p99',
      value: `${round(percentile(runs, 50))} / ${round(percentile(runs, 99))} ms`,
      note: '300 sequential POST /api/run?document=N&rule_id=…',
    });

    const rate = 200;
    const before = service.requestLogMs('POST /api/webhook/dms 202').length;
    const held = await acceptanceWithRunsHeld(sim, service.url, ids, rate);
    const inside = service.requestLogMs('POST /api/webhook/dms 202').slice(before);
    rows.push({
      measure: `webhook acceptance, runs held, p50 / p99 at ${rate}/s`,
      value: `${round(percentile(held.latencies, 50))} / ${round(percentile(held.latencies, 99))} ms`,
      note: `acceptance alone, from a second process: the runs wait at the simulator (a hold on GET /api/documents/{id}/) until each round is answered; ${held.rounds} rounds of ${rate} new deliveries: ${JSON.stringify(held.statuses)}; load ${loadNow()}`,
    });

    rows.push({
      measure: `  the same, inside the service (request log), p50 / p99`,
      value: `${round(percentile(inside, 50))} / ${round(percentile(inside, 99))} ms`,
      note: `${inside.length} requests: route, auth, body, durable append + fsync, 202 (the client's own time left out)`,
    });
    rows.push({
      measure: `  the client's own: send lateness p99 / its loop delay p99 (worst round)`,
      value: `${round(percentile(held.lateBy, 99))} / ${round(Math.max(...held.clientLoopDelayP99))} ms`,
      note: `not in the figures above (a late send is sent late, then timed); ${held.connections} connections opened`,
    });

    const marks = (values: number[]) => `${round(percentile(values, 50), 2)} / ${round(percentile(values, 99), 2)} ms`;
    rows.push({
      measure: `  of which the body read + parse, p50 / p99`,
      value: marks(held.bodyMs),
      note: 'Server-Timing marks of the route',
    });
    rows.push({
      measure: `  of which queueing + the durable append (group commit, fsync), p50 / p99`,
      value: marks(held.saveMs),
    });

    const floor = await fsyncFloor();
    rows.push({
      measure: `  the disk's floor: one 400-byte append + fdatasync, p50 / p99`,
      value: marks(floor),
      note: '200 in a row, right after the rounds: what "saved before the 202" cannot go below',
    });

    const load = await webhookLoad(service.url, ids, rate, 5);
    const lost = await countUnfinished(service.url, load.eventIds);
    rows.push({
      measure: `webhook acceptance, runs on, p50 / p99 at ${rate}/s`,
      value: `${round(load.p50)} / ${round(load.p99)} ms`,
      note: `the dry runs compete for the CPU and the journal; from a second process, ${load.sent} requests: ${JSON.stringify(load.statuses)}; the client sent p99 ${round(percentile(load.lateBy, 99))} ms late, its loop delay p99 ${round(load.clientLoopDelayP99)} ms; load ${loadNow()}`,
    });
    rows.push({
      measure: 'webhook events accepted but never run',
      value: String(lost),
      note: `${load.eventIds.length} distinct events accepted (duplicates collapse)`,
    });

    const traceCalls: number[] = [];
    const filtered: number[] = [];
    for (let i = 0; i < 100; i++) {
      traceCalls.push((await timed(() => api(service.url, '/api/traces?limit=100'))).ms);
      filtered.push((await timed(() => api(service.url, `/api/traces?limit=100&document=${ids[i]}`))).ms);
    }
    const stored = await api<{ traces: unknown[] }>(service.url, '/api/traces?limit=1000');
    rows.push({
      measure: 'GET /api/traces?limit=100 p50 / p99',
      value: `${round(percentile(traceCalls, 50))} / ${round(percentile(traceCalls, 99))} ms`,
      note: `history holds ≥ ${stored.body.traces.length} traces`,
    });
    rows.push({
      measure: 'GET /api/traces filtered by document p50 / p99',
      value: `${round(percentile(filtered, 50))} / ${round(percentile(filtered, 99))} ms`,
    });
    return rows;
  });
}

export interface WebhookLoadResult {
  sent: number;
  statuses: Record<string, number>;
  p50: number;
  p99: number;
  latencies: number[];
  /** How late the client itself sent each request after its due time (its timers, its loop); not in `latencies`. */
  lateBy: number[];
  /** The load process's own event-loop delay p99 and CPU time: what the client spent, apart from the service. */
  clientLoopDelayP99: number;
  clientCpuMs: number;
  /** Connections opened during the load (kept alive between requests; more open only when answers overlap). */
  connections: number;
  /** The service's own marks (Server-Timing): reading the body, then queueing + the durable append. */
  bodyMs: number[];
  saveMs: number[];
  eventIds: number[];
}

const loadNow = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');

/**
 * Acceptance (route, auth, body, durable append, 202) without the run backlog: in each round the two run
 * slots wait at the simulator while `rate` deliveries of distinct documents arrive in one second (they fit
 * the queue, so none is refused), then the runs are let go and the queue drains before the next round.
 */
async function acceptanceWithRunsHeld(
  sim: BenchRig['sim'],
  url: string,
  ids: number[],
  rate: number,
  rounds = 5,
): Promise<{
  latencies: number[];
  lateBy: number[];
  clientLoopDelayP99: number[];
  connections: number;
  bodyMs: number[];
  saveMs: number[];
  statuses: Record<string, number>;
  rounds: number;
}> {
  const latencies: number[] = [];
  const lateBy: number[] = [];
  const clientLoopDelayP99: number[] = [];
  const bodyMs: number[] = [];
  const saveMs: number[] = [];
  const statuses: Record<string, number> = {};
  let connections = 0;
  for (let round = 0; round < rounds; round++) {
    const hold = sim.faults.inject({ route: 'GET /api/documents/{id}/', kind: 'hold' });
    const batch = ids.slice(round * rate, (round + 1) * rate);
    let accepted: number[];
    try {
      const load = await webhookLoad(url, batch, rate, 1);
      latencies.push(...load.latencies);
      lateBy.push(...load.lateBy);
      clientLoopDelayP99.push(load.clientLoopDelayP99);
      connections += load.connections;
      bodyMs.push(...load.bodyMs);
      saveMs.push(...load.saveMs);
      accepted = load.eventIds;
      for (const [status, n] of Object.entries(load.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
    } finally {
      sim.faults.release(hold.id);
    }
    const open = await countUnfinished(url, accepted);
    if (open > 0) throw new Error(`${open} accepted deliveries did not finish after their runs were let go`);
  }
  return { latencies, lateBy, clientLoopDelayP99, connections, bodyMs, saveMs, statuses, rounds };
}

/**
 * Posts webhooks at `rate` per second for `seconds` from a second process (node:http, kept-alive connections,
 * open loop) and returns its figures.
 */
export async function webhookLoad(
  url: string,
  ids: number[],
  rate: number,
  seconds: number,
): Promise<WebhookLoadResult> {
  // Async on purpose: the simulator lives in this process and must keep answering during the load.
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join('bench', 'webhook-load.ts'),
      url,
      BENCH_TOKEN,
      String(rate),
      String(seconds),
      ids.join(','),
    ],
    { encoding: 'utf8', maxBuffer: 64 << 20 },
  );
  return JSON.parse(stdout) as WebhookLoadResult;
}

export async function countUnfinished(url: string, ids: number[], timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let open = new Set(ids);
  while (open.size > 0 && Date.now() < deadline) {
    const next = new Set<number>();
    for (const id of open) {
      const { body } = await api<{ status: string }>(url, `/api/events/${id}`);
      if (!['done', 'failed'].includes(body.status)) next.add(id);
    }
    open = next;
    if (open.size > 0) await new Promise((r) => setTimeout(r, 250));
  }
  return open.size;
}

/** Time to reload a rules dir of `count` files through POST /api/reload. */
export async function benchReload(count: number): Promise<Row[]> {
  return withRig({ files: manyRuleFiles(count) }, async ({ service }) => {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { ms, value } = await timed(() => api(service.url, '/api/reload', { method: 'POST' }));
      if (value.status !== 200) throw new Error(`reload failed: ${value.status} ${JSON.stringify(value.body)}`);
      times.push(ms);
    }
    return [
      {
        measure: `rules reload, ${count.toLocaleString('en')} files`,
        value: `${round(percentile(times, 50), 0)} ms`,
        note: 'median of 5 POST /api/reload',
      },
    ];
  });
}
