import path from 'node:path';
import type { Trace } from '../server/engine/model.js';
import { openTraceStore } from '../server/history/trace-store.js';
import { createMemoryLogger } from '../server/log.js';
import { tempDir } from './fixtures.js';
import { api, startService } from './service-process.js';
import { percentile, round, timed, type Row } from './stats.js';

/** A trace of realistic size: three conditions, two extracted values, two changes, two actions. */
function syntheticTrace(i: number): Trace {
  const document = 1 + (i % 5000);
  return {
    id: `bench-${i}`,
    at: new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString(),
    duration_ms: 2,
    source: i % 3 === 0 ? 'webhook' : 'job',
    event_id: 1 + Math.floor(i / 1000),
    document,
    rule_id: `rule-${i % 20}`,
    file: 'finance/invoices.yml',
    dry_run: i % 2 === 0,
    status: i % 4 === 0 ? 'not_matched' : 'matched',
    conditions: [
      {
        path: 'when/all/0',
        description: 'correspondent equals "Stadtwerke München"',
        field: 'correspondent',
        operator: 'equals',
        expected: 'Stadtwerke München',
        actual: 'Stadtwerke München',
        result: true,
      },
      {
        path: 'when/all/1',
        description: 'content matches /(?i)rechnung/',
        field: 'content',
        operator: 'matches',
        expected: '(?i)rechnung',
        actual: 'Stadtwerke München GmbH Rechnung Nr. SWM-2025-0012345 …',
        result: true,
      },
      { path: 'when/all', description: 'all of 2 conditions', operator: 'all', result: true },
    ],
    extracted: { number: `SWM-2025-${document}`, total: 84.37 },
    changes: {
      title: { from: 'Scan 0815', to: `Stadtwerke 2025-01 #${document}` },
      tags: { from: ['Posteingang'], to: ['Posteingang', 'Rechnung'] },
    },
    actions: [
      { path: 'actions/0', action: 'set_title', status: 'planned' },
      { path: 'actions/1', action: 'add_tags', status: 'planned' },
    ],
    error: null,
  };
}

/** Trace append rate into the real store, then `GET /api/traces` against a history filled to its retention. */
export async function benchHistory(retention = 20_000): Promise<Row[]> {
  const dataDir = tempDir('history');
  const store = await openTraceStore({ dir: path.join(dataDir, 'traces'), retention, logger: createMemoryLogger() });
  const total = retention + 5000;
  const { ms } = await timed(async () => {
    for (let i = 0; i < total; i++) store.append([syntheticTrace(i)]);
    await store.flush();
  });
  await store.close();
  const rows: Row[] = [
    {
      measure: 'trace append rate (one at a time, until on disk)',
      value: `${round(total / (ms / 1000), 0)} traces/s`,
      note: `${total.toLocaleString('en')} traces, retention ${retention.toLocaleString('en')}`,
    },
  ];

  const service = await startService(process.cwd(), {
    SVC_DATA_DIR: dataDir,
    SVC_RULES_DIR: tempDir('rules'),
    SVC_TRACE_RETENTION: String(retention),
  });
  try {
    const queries: Array<[string, string]> = [
      ['newest 100', '/api/traces?limit=100'],
      ['newest 1,000', '/api/traces?limit=1000'],
      ['by rule, 100', '/api/traces?limit=100&rule_id=rule-7'],
      ['by document (rare), 100', '/api/traces?limit=100&document=4321'],
    ];
    for (const [label, route] of queries) {
      const times: number[] = [];
      let count = 0;
      for (let i = 0; i < 50; i++) {
        const { ms: t, value } = await timed(() => api<{ traces: unknown[] }>(service.url, route));
        times.push(t);
        count = value.body.traces.length;
      }
      rows.push({
        measure: `GET /api/traces ${label}, full history, p50 / p99`,
        value: `${round(percentile(times, 50))} / ${round(percentile(times, 99))} ms`,
        note: `${count} returned`,
      });
    }
  } finally {
    await service.stop();
  }
  return rows;
}
