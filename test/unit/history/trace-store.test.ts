import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { Trace } from '../../../server/engine/model.js';
import { openTraceStore, type TraceStoreOptions } from '../../../server/history/trace-store.js';
import { createMemoryLogger } from '../../../server/log.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { makeTrace } from '../../helpers/trace-factory.js';

const trace = makeTrace;

function open(dir: string, extra: Partial<TraceStoreOptions> = {}) {
  const logger = createMemoryLogger();
  // A long delay keeps writes under the test's control: only flush() writes.
  return openTraceStore({ dir, retention: 1000, logger, flushDelayMs: 60_000, ...extra }).then((store) => ({
    store,
    logger,
  }));
}

const all = { limit: 1000 };

/** A full garbage collection, without starting node with --expose-gc. */
function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

describe('trace store', () => {
  it('returns traces newest first, honouring limit and every filter', async () => {
    const { store } = await open(tempDir());
    const a = trace({ document: 1, rule_id: 'a', status: 'matched' });
    const b = trace({ document: 2, rule_id: 'b', status: 'not_matched', event_id: 7 });
    const c = trace({ document: 1, rule_id: 'b', status: 'error' });
    store.append([a, b]);
    store.append([c]);
    assert.deepEqual(
      (await store.query(all)).map((t) => t.id),
      [c.id, b.id, a.id],
    );
    assert.deepEqual(
      (await store.query({ limit: 2 })).map((t) => t.id),
      [c.id, b.id],
    );
    assert.deepEqual(
      (await store.query({ limit: 10, document: 1 })).map((t) => t.id),
      [c.id, a.id],
    );
    assert.deepEqual(
      (await store.query({ limit: 10, rule_id: 'b' })).map((t) => t.id),
      [c.id, b.id],
    );
    assert.deepEqual(
      (await store.query({ limit: 10, event_id: 7 })).map((t) => t.id),
      [b.id],
    );
    assert.deepEqual(
      (await store.query({ limit: 10, status: 'error' })).map((t) => t.id),
      [c.id],
    );
    assert.deepEqual(await store.query({ limit: 10, document: 2, rule_id: 'a' }), []);
    await store.close();
  });

  it('keeps traces across a restart', async () => {
    const dir = tempDir();
    const first = await open(dir);
    const written = [trace(), trace(), trace()];
    first.store.append(written);
    await first.store.close();

    const second = await open(dir);
    assert.deepEqual(await second.store.query(all), [...written].reverse());
    await second.store.close();
  });

  it('writes a batch once the delay has passed, without an explicit flush', async () => {
    const dir = tempDir();
    const { store } = await open(dir, { flushDelayMs: 20 });
    store.append([trace()]);
    for (let i = 0; i < 100 && !fs.existsSync(path.join(dir, 'traces-000001.json')); i++)
      await new Promise((r) => setTimeout(r, 20));
    const reopened = await open(dir);
    assert.equal(reopened.store.count(), 1);
    await store.close();
  });

  it('drops the oldest traces beyond the retention, also after a restart', async () => {
    const dir = tempDir();
    const { store } = await open(dir, { retention: 10, segmentSize: 4 });
    const written = Array.from({ length: 25 }, () => trace());
    for (const t of written) store.append([t]);
    await store.flush();
    const newest = written
      .slice(-10)
      .reverse()
      .map((t) => t.id);
    assert.deepEqual(
      (await store.query(all)).map((t) => t.id),
      newest,
    );
    assert.equal(store.count(), 10);
    // Whole old files are deleted: at most the retention plus one partial file stays on disk.
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
    assert.ok(files.length <= 4, `expected at most 4 files, found ${files.join(', ')}`);
    await store.close();

    const reopened = await open(dir, { retention: 10, segmentSize: 4 });
    assert.deepEqual(
      (await reopened.store.query(all)).map((t) => t.id),
      newest,
    );
    await reopened.store.close();
  });

  it('frees the traces of a dropped file at once, even while the disk is still writing', async () => {
    // The 100,000-document job with the heap capped at 96 MiB ran out of memory on a loaded machine: every
    // batch queued its own write, holding the files retention had dropped until the disk caught up.
    const dir = tempDir();
    const first = await open(dir, { segmentSize: 4 });
    first.store.append(Array.from({ length: 12 }, () => trace()));
    await first.store.close();

    const { store } = await open(dir, { retention: 12, segmentSize: 4 });
    const oldest = new WeakRef((await store.query(all)).at(-1) as Trace);
    for (let batch = 0; batch < 3; batch++) {
      store.append(Array.from({ length: 4 }, () => trace()));
      void store.flush();
    }
    await new Promise((resolve) => setImmediate(resolve)); // a weakly held object is kept for the current turn
    collectGarbage();
    assert.equal(oldest.deref(), undefined, "the dropped file's traces are still held");
    await store.flush();
    assert.deepEqual(
      fs.readdirSync(dir).filter((f) => f.endsWith('.json')),
      ['traces-000004.json', 'traces-000005.json', 'traces-000006.json'],
    );
    await store.close();
  });

  it('neither writes nor holds a file that retention drops while an earlier file is being written', async () => {
    const dir = tempDir();
    const { store } = await open(dir, { retention: 12, segmentSize: 4 });
    const batch = () => Array.from({ length: 4 }, () => trace());
    store.append(batch());
    void store.flush(); // the pass starts writing file 1
    const second = batch();
    store.append(second);
    void store.flush(); // file 2 waits for that pass
    const fromSecond = new WeakRef(second[0]);
    second.length = 0;
    await Promise.resolve(); // the pass is on the disk now, with file 2 still to write
    for (let i = 0; i < 3; i++) {
      store.append(batch());
      void store.flush(); // files 3, 4 and 5: retention drops 1 and 2
    }
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    assert.equal(fromSecond.deref(), undefined, 'the dropped file 2 is still held');
    await store.flush();
    assert.deepEqual(
      fs.readdirSync(dir).filter((f) => f.endsWith('.json')),
      ['traces-000003.json', 'traces-000004.json', 'traces-000005.json'],
    );
    await store.close();
  });

  it('does not rewrite older history files when a batch is appended', async () => {
    const dir = tempDir();
    const { store } = await open(dir, { segmentSize: 5 });
    store.append(Array.from({ length: 12 }, () => trace()));
    await store.flush();
    const oldest = path.join(dir, 'traces-000001.json');
    const before = fs.statSync(oldest);
    const newestBefore = fs.statSync(path.join(dir, 'traces-000003.json'));
    store.append([trace()]);
    await store.flush();
    const after = fs.statSync(oldest);
    assert.equal(after.ino, before.ino);
    assert.equal(after.mtimeMs, before.mtimeMs);
    // The newest file was replaced atomically (a new inode from the temp-file rename).
    assert.notEqual(fs.statSync(path.join(dir, 'traces-000003.json')).ino, newestBefore.ino);
    await store.close();
  });

  it('a history file written batch by batch holds every trace once, in order, as plain JSON', async () => {
    const dir = tempDir();
    const { store } = await open(dir, { segmentSize: 10 });
    // Non-ASCII text: each batch's bytes are encoded once and kept for the next rewrite of the file.
    const written = Array.from({ length: 14 }, (_, i) =>
      trace({ document: i, error: i % 2 ? `Größe → ${i} €` : null }),
    );
    for (const batch of [written.slice(0, 3), written.slice(3, 4), [], written.slice(4, 9), written.slice(9)]) {
      store.append(batch);
      await store.flush();
    }
    const onDisk = (n: number) =>
      JSON.parse(fs.readFileSync(path.join(dir, `traces-00000${n}.json`), 'utf8')) as {
        version: number;
        traces: Trace[];
      };
    assert.equal(onDisk(1).version, 1);
    assert.equal(
      fs.statSync(path.join(dir, 'traces-000001.json')).mode & 0o777,
      0o600,
      "the history is the owner's only",
    );
    assert.deepEqual([...onDisk(1).traces, ...onDisk(2).traces], written);
    await store.close();
    const reopened = await open(dir, { segmentSize: 10 });
    assert.deepEqual(
      (await reopened.store.query(all)).map((t) => t.error),
      written.map((t) => t.error).reverse(),
    );
    await reopened.store.close();
  });

  it('writes many appends made before a flush in one batch', async () => {
    const dir = tempDir();
    const { store } = await open(dir);
    for (let i = 0; i < 50; i++) store.append([trace()]);
    assert.deepEqual(fs.readdirSync(dir), [], 'nothing is written per trace');
    await store.flush();
    const data = JSON.parse(fs.readFileSync(path.join(dir, 'traces-000001.json'), 'utf8')) as { traces: Trace[] };
    assert.equal(data.traces.length, 50);
    await store.close();
  });

  it('shows a batch to queries while it is still being written', async () => {
    const { store } = await open(tempDir(), { flushBatch: 10 });
    const batch = Array.from({ length: 10 }, () => trace());
    store.append(batch); // reaches flushBatch: the write starts now
    const during = store.flush(); // a second flush waits for the first write
    assert.equal((await store.query(all)).length, 10);
    await during;
    assert.equal((await store.query(all)).length, 10);
    await store.close();
  });

  it('moves a corrupt history file aside, says so in the log and starts fresh', async () => {
    const dir = tempDir();
    const first = await open(dir);
    const kept = trace();
    first.store.append([kept]);
    await first.store.close();
    fs.writeFileSync(path.join(dir, 'traces-000002.json'), '{"version":1,"traces":[{"id":');

    const { store, logger } = await open(dir);
    const aside = fs.readdirSync(dir).filter((f) => f.startsWith('traces-000002.json.corrupt-'));
    assert.equal(aside.length, 1);
    assert.equal(fs.readFileSync(path.join(dir, aside[0]), 'utf8'), '{"version":1,"traces":[{"id":');
    assert.ok(
      logger.lines.some((l) => l.startsWith('error') && l.includes('moved it to') && l.includes('traces-000002.json')),
    );
    assert.deepEqual(
      (await store.query(all)).map((t) => t.id),
      [kept.id],
    );

    const next = trace();
    store.append([next]);
    await store.close();
    const reopened = await open(dir);
    assert.deepEqual(
      (await reopened.store.query(all)).map((t) => t.id),
      [next.id, kept.id],
    );
  });

  it('treats a file with the wrong shape as corrupt', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'traces-000001.json'), '[1,2,3]');
    const { store, logger } = await open(dir);
    assert.equal(store.count(), 0);
    assert.ok(logger.lines.some((l) => l.includes('not a trace history file')));
    assert.ok(fs.readdirSync(dir).some((f) => f.startsWith('traces-000001.json.corrupt-')));
  });

  it('a write the disk refused is made again at the next flush, with no new trace to carry it', async () => {
    const dir = tempDir();
    const { store, logger } = await open(dir);
    // A directory where the history file should go: the write fails as on a full or broken disk.
    const blocker = path.join(dir, 'traces-000001.json');
    fs.mkdirSync(blocker);
    fs.writeFileSync(path.join(blocker, 'in-the-way'), '');
    store.append([trace({ document: 1 })]);
    await store.flush();
    assert.ok(logger.lines.some((l) => l.includes('could not write trace history')));
    assert.equal(store.count(), 1, 'the trace is still shown');

    fs.rmSync(blocker, { recursive: true });
    await store.flush();
    await store.close();
    const { store: reopened } = await open(dir);
    assert.equal(reopened.count(), 1);
    await reopened.close();
  });
});
