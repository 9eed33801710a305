import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Trace } from '../../../server/engine/model.js';
import { COLD_CACHE_SEGMENTS } from '../../../server/history/cold-segments.js';
import { openTraceStore, type TraceStoreOptions } from '../../../server/history/trace-store.js';
import { createMemoryLogger } from '../../../server/log.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { makeTrace } from '../../helpers/trace-factory.js';

const SEGMENT = 10;

async function open(dir: string, extra: Partial<TraceStoreOptions> = {}) {
  const logger = createMemoryLogger();
  const store = await openTraceStore({
    dir,
    retention: 1000,
    logger,
    segmentSize: SEGMENT,
    flushDelayMs: 60_000,
    ...extra,
  });
  return { store, logger };
}

/** 35 traces (three full files and half of a fourth): document 7 in the first, second and newest files only. */
function history(): Trace[] {
  return Array.from({ length: 35 }, (_, i) =>
    makeTrace({
      document: [2, 13, 14, 33].includes(i) ? 7 : 100 + i,
      rule_id: i < SEGMENT ? `old-${i % 2}` : 'current',
      status: i === 4 ? 'error' : 'matched',
      event_id: 1000 + i,
    }),
  );
}

async function written(extra: Partial<TraceStoreOptions> = {}) {
  const dir = tempDir();
  const traces = history();
  const { store, logger } = await open(dir, extra);
  store.append(traces);
  await store.flush();
  return { dir, traces, store, logger };
}

const ids = (traces: readonly Trace[]) => traces.map((t) => t.id);

describe('the trace history holds only its newest file in memory', () => {
  it('after more than two files of traces are written, only the newest file is held', async () => {
    const dir = tempDir();
    const { store } = await open(dir);
    store.append(history());
    assert.deepEqual(store.stats(), { held: 35, cold: 0, cached: 0, reads: 0 }, 'all held until they are on disk');
    await store.flush();
    assert.deepEqual(store.stats(), { held: 5, cold: 30, cached: 0, reads: 0 });
    assert.equal(store.count(), 35);
    await store.close();
  });

  it('a query finds traces in older files, newest first, within its limit and filters', async () => {
    const { traces, store } = await written();
    const at = (...positions: number[]) => positions.map((i) => traces[i].id);
    assert.deepEqual(ids(await store.query({ limit: 3, document: 7 })), at(33, 14, 13));
    assert.deepEqual(ids(await store.query({ limit: 10, document: 7 })), at(33, 14, 13, 2));
    assert.deepEqual(ids(await store.query({ limit: 2, rule_id: 'old-1' })), at(9, 7));
    assert.deepEqual(ids(await store.query({ limit: 10, rule_prefix: 'old', status: 'error' })), at(4));
    assert.deepEqual(ids(await store.query({ limit: 10, event_id: 1003 })), at(3));
    assert.deepEqual(ids(await store.query({ limit: 10, documents: [7, 112] })), at(33, 14, 13, 12, 2));
    assert.deepEqual(ids(await store.query({ limit: 12 })), at(...Array.from({ length: 12 }, (_, i) => 34 - i)));
    assert.deepEqual(ids(await store.query({ limit: 100 })), ids(traces).reverse());
    await store.close();
  });

  it('reads only the files whose index allows a match, and keeps the newest files read whole', async () => {
    const { traces, store } = await written();
    assert.deepEqual(ids(await store.query({ limit: 10, document: 134 })), [traces[34].id]);
    assert.deepEqual(ids(await store.query({ limit: 10, rule_id: 'nowhere' })), []);
    assert.deepEqual(ids(await store.query({ limit: 10, status: 'error', rule_id: 'current' })), []);
    assert.equal(store.stats().reads, 0, 'no file was read');
    // Document 7 is in the first two files, not the third: two files read, line by line, nothing kept.
    await store.query({ limit: 10, document: 7 });
    assert.deepEqual(store.stats(), { held: 5, cold: 30, cached: 0, reads: 2 });
    // The newest 12 reach into one file only.
    await store.query({ limit: 12 });
    assert.deepEqual(store.stats(), { held: 5, cold: 30, cached: SEGMENT, reads: 3 });
    await store.query({ limit: 100 });
    assert.deepEqual(store.stats(), { held: 5, cold: 30, cached: COLD_CACHE_SEGMENTS * SEGMENT, reads: 5 });
    // Asked again, only the file beyond the cache is read.
    await store.query({ limit: 100 });
    assert.equal(store.stats().reads, 6);
    await store.close();
  });

  it('a restart holds no old file in memory and still finds their traces', async () => {
    const first = await written();
    await first.store.close();
    const { store } = await open(first.dir);
    assert.deepEqual(store.stats(), { held: 5, cold: 30, cached: 0, reads: 0 });
    assert.deepEqual(ids(await store.query({ limit: 1, document: 7 })), [first.traces[33].id]);
    assert.deepEqual(ids(await store.query({ limit: 100 })), ids(first.traces).reverse());

    // New traces fill the newest file; the file they fill is let go once written.
    const next = Array.from({ length: 6 }, () => makeTrace());
    store.append(next);
    await store.flush();
    assert.deepEqual(store.stats().held, 1);
    assert.deepEqual(ids(await store.query({ limit: 2 })), ids(next.slice(-2)).reverse());
    await store.close();
  });

  it('a damaged old file is salvaged at open, then held as its file', async () => {
    const first = await written();
    await first.store.close();
    const file = path.join(first.dir, 'traces-000001.json');
    const bytes = fs.readFileSync(file);
    fs.truncateSync(file, bytes.indexOf(`"id":"${first.traces[6].id}"`) + 20);

    const { store, logger } = await open(first.dir);
    assert.ok(logger.lines.some((l) => l.includes(`trace history file ${file}: 6 traces kept`)));
    assert.equal(fs.readdirSync(first.dir).filter((f) => f.startsWith('traces-000001.json.corrupt-')).length, 1);
    assert.deepEqual(store.stats(), { held: 5, cold: 26, cached: 0, reads: 0 });
    assert.deepEqual(
      ids(await store.query({ limit: 10, document: 7 })),
      ids([33, 14, 13, 2].map((i) => first.traces[i])),
    );
    assert.deepEqual(
      ids(await store.query({ limit: 100, rule_prefix: 'old' })),
      ids(first.traces.slice(0, 6)).reverse(),
    );
    await store.close();
  });

  it('a file damaged after it was let go still answers with the traces that parse', async () => {
    const { dir, traces, store, logger } = await written();
    const file = path.join(dir, 'traces-000002.json');
    const rows = fs.readFileSync(file, 'utf8').split('\n');
    const victim = rows.findIndex((l) => l.includes(`"id":"${traces[13].id}"`));
    rows[victim] = rows[victim].slice(0, 20);
    fs.writeFileSync(file, rows.join('\n'));
    assert.deepEqual(ids(await store.query({ limit: 10, document: 7 })), ids([33, 14, 2].map((i) => traces[i])));
    assert.ok(logger.lines.some((l) => l.includes(`trace history file ${file} is damaged: 9 traces readable`)));
    await store.close();
  });

  it('finds traces in an old file written as one line by an earlier release', async () => {
    const dir = tempDir();
    const traces = history();
    const legacy = { version: 1, traces: traces.slice(0, SEGMENT) };
    fs.writeFileSync(path.join(dir, 'traces-000001.json'), JSON.stringify(legacy));
    const { store, logger } = await open(dir);
    store.append(traces.slice(SEGMENT));
    await store.flush();
    assert.deepEqual(store.stats(), { held: 5, cold: 30, cached: 0, reads: 0 });
    assert.deepEqual(ids(await store.query({ limit: 10, document: 7 })), ids([33, 14, 13, 2].map((i) => traces[i])));
    assert.deepEqual(ids(await store.query({ limit: 100, event_id: 1001 })), [traces[1].id]);
    assert.deepEqual(
      logger.lines.filter((l) => !l.startsWith('info')),
      [],
    );
    await store.close();
  });

  it('answers whether an event has a trace for a document without reading a file, within the retention', async () => {
    const { traces, store } = await written({ retention: 30 });
    // Retention keeps the newest 30: the first file's first five traces are no longer shown.
    assert.equal(store.hasEventTrace(1007, traces[7].document), true, 'in an old file');
    assert.equal(store.hasEventTrace(1034, traces[34].document), true, 'in the newest file');
    assert.equal(store.hasEventTrace(1002, 7), false, 'outside the retention');
    assert.equal(store.hasEventTrace(1007, 7), false, 'another document');
    store.append([makeTrace({ event_id: 5000, document: 9 })]);
    assert.equal(store.hasEventTrace(5000, 9), true, 'not yet written');
    assert.equal(store.stats().reads, 0);
    await store.close();
  });

  it('holds a full file whose write failed until it is written', async () => {
    const dir = tempDir();
    const { store } = await open(dir);
    const blocker = path.join(dir, 'traces-000001.json');
    fs.mkdirSync(blocker);
    fs.writeFileSync(path.join(blocker, 'in-the-way'), '');
    const traces = history();
    store.append(traces);
    await store.flush();
    assert.deepEqual(store.stats(), { held: 15, cold: 20, cached: 0, reads: 0 });
    fs.rmSync(blocker, { recursive: true });
    await store.flush();
    assert.deepEqual(store.stats(), { held: 5, cold: 30, cached: 0, reads: 0 });
    assert.deepEqual(
      ids(await store.query({ limit: 100, rule_prefix: 'old' })),
      ids(traces.slice(0, SEGMENT)).reverse(),
    );
    await store.close();
  });
});
