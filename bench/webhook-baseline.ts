import { BENCH_RULES } from './fixtures.js';
import { countUnfinished, webhookLoad } from './latency-bench.js';
import { withRig } from './service-process.js';
import { percentile, round, type Row } from './stats.js';

/**
 * Webhook acceptance of this build against another checkout's build (`--baseline <dir>`, built with
 * `npm run build` there), in alternating rounds within one run, so both see the same machine load.
 */
export async function benchWebhookBaseline(baselineRoot: string, rounds = 3, rate = 200, seconds = 5): Promise<Row[]> {
  const runs: Record<'baseline' | 'this build', Array<{ p50: number; p99: number; lost: number }>> = { baseline: [], 'this build': [] };
  for (let round_ = 0; round_ < rounds; round_++) {
    for (const [label, root] of [
      ['baseline', baselineRoot],
      ['this build', process.cwd()],
    ] as const) {
      const setup = { generate: { count: 1000, seed: 11 }, files: { 'bench.yml': BENCH_RULES }, env: { SVC_WEBHOOK_DRY_RUN: 'true' }, root };
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
