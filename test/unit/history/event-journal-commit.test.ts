import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { openEventStore, type EventStore } from '../../../server/history/event-store.js';
import type { JournalIo } from '../../../server/history/group-commit.js';
import { createMemoryLogger } from '../../../server/log.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'dms-rules-journal-'));

/** A journal that records every write instead of touching a disk; `hold()` keeps the next appends in flight. */
function countingIo() {
  const appends: string[] = [];
  const replaces: string[] = [];
  let gate: Promise<void> | null = null;
  let release = () => {};
  let failNext = false;
  const io: JournalIo = {
    async append(text) {
      if (failNext) {
        failNext = false;
        throw new Error('ENOSPC: no space left on device');
      }
      appends.push(text);
      await gate;
    },
    async replace(text) {
      replaces.push(text);
      await Promise.resolve();
    },
  };
  return {
    io,
    appends,
    replaces,
    hold() {
      gate = new Promise((resolve) => (release = resolve));
    },
    release: () => {
      gate = null;
      release();
    },
    failNextAppend: () => (failNext = true),
    reset() {
      appends.length = 0;
      replaces.length = 0;
    },
  };
}

const lines = (text: string) => text.split('\n').filter(Boolean);

/** What `receive` does per delivery: create the record, then wait until it is on disk. */
async function accept(store: EventStore, document: number): Promise<number> {
  const { event_id } = store.create({ kind: 'webhook', rule_id: null, dry_run: false, document, trigger: 'updated' });
  await store.flush();
  return event_id;
}

describe('events journal group commit', () => {
  it('writes N deliveries that arrive together with one append (one write, one fsync)', async () => {
    const disk = countingIo();
    const store = await openEventStore(tmp(), createMemoryLogger(), { io: disk.io });
    assert.equal(disk.replaces.length, 1, 'the journal is compacted once at open');
    disk.reset();

    const ids = await Promise.all(Array.from({ length: 50 }, (_, i) => accept(store, i + 1)));
    assert.equal(disk.appends.length, 1);
    assert.equal(disk.replaces.length, 0, 'no rewrite of the whole file per delivery');
    assert.deepEqual(
      lines(disk.appends[0]).map((l) => (JSON.parse(l) as { event_id: number }).event_id),
      ids,
    );
    await store.close();
  });

  it('deliveries arriving while a write is in flight share the next single write, and wait for it', async () => {
    const disk = countingIo();
    const store = await openEventStore(tmp(), createMemoryLogger(), { io: disk.io });
    disk.reset();
    disk.hold();
    let firstDone = false;
    const first = accept(store, 1).then(() => (firstDone = true));
    while (disk.appends.length === 0) await new Promise((r) => setImmediate(r));
    const later = Promise.all(Array.from({ length: 10 }, (_, i) => accept(store, i + 2)));
    await new Promise((r) => setImmediate(r));
    assert.equal(firstDone, false, 'the first delivery is not answered before its write finished');
    assert.equal(disk.appends.length, 1, 'nothing else is written while a write is in flight');
    disk.release();
    await Promise.all([first, later]);
    assert.equal(disk.appends.length, 2);
    assert.equal(lines(disk.appends[1]).length, 10);
    await store.close();
  });

  it('a status change and a progress update of one record in one batch cost one line', async () => {
    const disk = countingIo();
    const store = await openEventStore(tmp(), createMemoryLogger(), { io: disk.io, flushIntervalMs: 60_000 });
    const e = store.create({ kind: 'job', rule_id: 'r', dry_run: true });
    await store.flush();
    disk.reset();
    store.update(e.event_id, { processed: 5 });
    store.update(e.event_id, { status: 'running' });
    store.update(e.event_id, { processed: 9 });
    await store.flush();
    assert.equal(disk.appends.length, 1);
    assert.deepEqual(
      lines(disk.appends[0]).map((l) => JSON.parse(l) as { status: string; processed: number }),
      [{ ...store.get(e.event_id) }],
    );
    await store.close();
  });

  it('a failed append is refused to the waiting caller (503) and the next write replaces the whole file', async () => {
    const disk = countingIo();
    const logger = createMemoryLogger();
    const store = await openEventStore(tmp(), logger, { io: disk.io });
    disk.reset();
    disk.failNextAppend();
    await assert.rejects(
      accept(store, 1),
      (err: Error & { status?: number }) => err.status === 503 && /could not be written.*ENOSPC/.test(err.message),
    );
    assert.ok(logger.lines.some((l) => l.startsWith('error') && l.includes('ENOSPC')));

    await accept(store, 2);
    // Half a line may have reached the end of the file: appending after it would glue two records together.
    assert.equal(disk.appends.length, 0);
    assert.equal(disk.replaces.length, 1);
    assert.deepEqual(
      lines(disk.replaces[0])
        .slice(1)
        .map((l) => (JSON.parse(l) as { document: number }).document),
      [1, 2],
      'the record whose append failed is in the rewrite',
    );
    await store.close();
  });

  it('compacts once the appended lines outgrow the file: one line per live record', async () => {
    const disk = countingIo();
    const store = await openEventStore(tmp(), createMemoryLogger(), { io: disk.io, compactAfterBytes: 4096 });
    disk.reset();
    const e = store.create({ kind: 'job', rule_id: 'r', dry_run: true });
    for (let i = 0; i < 40; i++) {
      store.update(e.event_id, { status: i % 2 ? 'running' : 'queued', processed: i });
      await store.flush();
    }
    assert.ok(disk.replaces.length >= 1, 'compacted at least once');
    assert.ok(disk.appends.length < 40);
    const last = lines(disk.replaces.at(-1) ?? '');
    assert.deepEqual(JSON.parse(last[0]), { journal: 'events', version: 1, next_id: e.event_id + 1 });
    assert.equal(last.length, 2, 'header + the one record');
    await store.close();
  });

  it('a status change marked `soon` (a delivery starting to run) waits for the next flush instead of its own write', async () => {
    const disk = countingIo();
    const store = await openEventStore(tmp(), createMemoryLogger(), { io: disk.io, flushIntervalMs: 60_000 });
    const id = await accept(store, 1);
    disk.reset();
    store.update(id, { status: 'running', total: 1 }, { soon: true });
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    assert.equal(disk.appends.length, 0, 'no write of its own');
    // The next delivery's commit carries it: both records in one append.
    await accept(store, 2);
    assert.equal(disk.appends.length, 1);
    const written = lines(disk.appends[0]).map((l) => JSON.parse(l) as { event_id: number; status: string });
    assert.deepEqual(
      written.map((r) => [r.event_id, r.status]),
      [
        [id, 'running'],
        [id + 1, 'queued'],
      ],
    );
    await store.close();
  });

  it('past the retention, each new record drops only the oldest finished one (unfinished ones stay)', async () => {
    const disk = countingIo();
    const store = await openEventStore(tmp(), createMemoryLogger(), { io: disk.io, retention: 3 });
    const waiting = await accept(store, 1);
    const done = [await accept(store, 2), await accept(store, 3)];
    for (const id of done) store.update(id, { status: 'done' });
    await accept(store, 4);
    const fifth = await accept(store, 5);
    assert.deepEqual(
      store.list().map((e) => e.event_id),
      [fifth, fifth - 1, waiting],
    );
    await store.close();
  });

  it('after close nothing more is written', async () => {
    const disk = countingIo();
    const store = await openEventStore(tmp(), createMemoryLogger(), { io: disk.io });
    await store.close();
    disk.reset();
    await accept(store, 1);
    assert.deepEqual([disk.appends.length, disk.replaces.length], [0, 0]);
  });
});
