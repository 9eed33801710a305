import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { openEventStore, type EventRecord } from '../../../server/history/event-store.js';
import { createMemoryLogger } from '../../../server/log.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'dms-rules-events-'));

/** The records the journal on disk holds, replayed as the store replays them (last line per id wins). */
function onDisk(dir: string): EventRecord[] {
  const byId = new Map<number, EventRecord>();
  for (const line of fs.readFileSync(path.join(dir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean)) {
    const value = JSON.parse(line) as EventRecord | { drop: number } | { journal: string };
    if ('event_id' in value) byId.set(value.event_id, value);
    else if ('drop' in value) byId.delete(value.drop);
  }
  return [...byId.values()].sort((a, b) => a.event_id - b.event_id);
}

test('ids increase and keep increasing after a restart', async () => {
  const dir = tmp();
  const first = await openEventStore(dir, createMemoryLogger());
  const a = first.create({ kind: 'job', rule_id: 'r1', dry_run: true });
  const b = first.create({ kind: 'webhook', rule_id: null, dry_run: false, document: 7 });
  assert.equal(b.event_id, a.event_id + 1);
  first.update(a.event_id, { status: 'done' });
  first.update(b.event_id, { status: 'done' });
  await first.close();

  const second = await openEventStore(dir, createMemoryLogger());
  const c = second.create({ kind: 'job', rule_id: 'r2', dry_run: true });
  assert.equal(c.event_id, b.event_id + 1);
  assert.equal(second.get(b.event_id)?.document, 7);
  await second.close();
});

test('a job left running or queued by the previous process is interrupted on open', async () => {
  const dir = tmp();
  const store = await openEventStore(dir, createMemoryLogger());
  const running = store.create({ kind: 'job', rule_id: 'r1', dry_run: false });
  store.update(running.event_id, { status: 'running', processed: 5, total: 10 });
  const queued = store.create({ kind: 'job', rule_id: 'r1', dry_run: false });
  const done = store.create({ kind: 'job', rule_id: 'r1', dry_run: true });
  store.update(done.event_id, { status: 'done' });
  await store.flush();

  const logger = createMemoryLogger();
  const reopened = await openEventStore(dir, logger);
  const r = reopened.get(running.event_id);
  assert.equal(r?.status, 'interrupted');
  assert.equal(r?.processed, 5);
  assert.ok(r?.finished_at);
  assert.match(r?.error ?? '', /stopped/);
  assert.equal(reopened.get(queued.event_id)?.status, 'interrupted');
  assert.equal(reopened.get(done.event_id)?.status, 'done');
  assert.ok(logger.lines.some((l) => l.includes('2 job(s)')));
  await reopened.close();
});

test('progress updates reach the file on flush, and list is newest first with filters', async () => {
  const dir = tmp();
  const store = await openEventStore(dir, createMemoryLogger(), { flushIntervalMs: 60_000 });
  const a = store.create({ kind: 'job', rule_id: 'r1', dry_run: true });
  store.create({ kind: 'webhook', rule_id: null, dry_run: false, document: 3 });
  store.update(a.event_id, { processed: 42 });
  await store.flush();
  assert.equal(onDisk(dir)[0].processed, 42);
  assert.deepEqual(
    store.list().map((e) => e.kind),
    ['webhook', 'job'],
  );
  assert.deepEqual(
    store.list({ kind: 'job' }).map((e) => e.event_id),
    [a.event_id],
  );
  assert.equal(store.list({ limit: 1 }).length, 1);
  await store.close();
});

test('retention drops the oldest finished records, never unfinished ones', async () => {
  const store = await openEventStore(tmp(), createMemoryLogger(), { retention: 3 });
  const running = store.create({ kind: 'job', rule_id: 'r', dry_run: true });
  store.update(running.event_id, { status: 'running' });
  for (let i = 0; i < 5; i++) {
    const e = store.create({ kind: 'webhook', rule_id: null, dry_run: false, document: i + 1 });
    store.update(e.event_id, { status: 'done' });
  }
  const ids = store.list().map((e) => e.event_id);
  assert.ok(ids.length <= 4);
  assert.ok(ids.includes(running.event_id));
  await store.close();
});

test('past the retention with nothing finished, a record that finishes later is still the one dropped', async () => {
  const store = await openEventStore(tmp(), createMemoryLogger(), { retention: 2 });
  const waiting = [1, 2, 3, 4].map((document) =>
    store.create({ kind: 'webhook', rule_id: null, dry_run: false, document }),
  );
  assert.equal(store.list().length, 4, 'unfinished records all stay, past the retention');
  store.update(waiting[0].event_id, { status: 'done' });
  const job = store.create({ kind: 'job', rule_id: 'r', dry_run: true });
  assert.deepEqual(
    store.list().map((e) => e.event_id),
    [job.event_id, waiting[3].event_id, waiting[2].event_id, waiting[1].event_id],
    'the delivery that finished went at the next record',
  );
  assert.equal(store.interruptUnfinished('restart'), 1, 'the job is interrupted; deliveries wait for the restart');
  store.create({ kind: 'job', rule_id: 'r', dry_run: true });
  assert.equal(store.get(job.event_id), undefined, 'an interrupted record is finished and goes too');
  await store.close();
});

test('records past the retention go as they finish, with no record created after them, and stay gone', async () => {
  const dir = tmp();
  const store = await openEventStore(dir, createMemoryLogger(), { retention: 3 });
  // A burst: every delivery accepted first, all of them finishing afterwards.
  const burst = Array.from({ length: 10 }, (_, i) =>
    store.create({ kind: 'webhook', rule_id: null, dry_run: false, document: i + 1 }),
  );
  for (const e of burst) store.update(e.event_id, { status: 'done' });
  const newest = burst.slice(-3).map((e) => e.event_id);
  assert.deepEqual(
    store.list().map((e) => e.event_id),
    newest.toReversed(),
  );
  await store.close();
  assert.deepEqual(
    onDisk(dir).map((e) => e.event_id),
    newest,
    'the file says the others were dropped',
  );
});

test('an unreadable events file is moved aside and a fresh one started', async () => {
  const dir = tmp();
  fs.writeFileSync(path.join(dir, 'events.json'), '{ not json');
  const logger = createMemoryLogger();
  const store = await openEventStore(dir, logger);
  assert.equal(store.create({ kind: 'job', rule_id: 'r', dry_run: true }).event_id, 1);
  assert.ok(fs.readdirSync(dir).some((f) => f.startsWith('events.json.corrupt-')));
  assert.ok(logger.lines.some((l) => l.startsWith('error') && l.includes('moved it to')));
  await store.close();
});

test('after close, late updates stay in memory and never reach the file', async () => {
  const dir = tmp();
  const store = await openEventStore(dir, createMemoryLogger());
  const e = store.create({ kind: 'job', rule_id: 'r', dry_run: true });
  await store.close();
  store.update(e.event_id, { status: 'done' });
  await store.flush();
  assert.equal(onDisk(dir)[0].status, 'queued');
});

test('accepted webhook deliveries are the durable queue: kept unfinished on open, and an echo can be discarded', async () => {
  const dir = tmp();
  const store = await openEventStore(dir, createMemoryLogger());
  const waiting = store.create({ kind: 'webhook', rule_id: null, dry_run: false, document: 3, trigger: 'added' });
  const running = store.create({ kind: 'webhook', rule_id: null, dry_run: false, document: 4, trigger: 'updated' });
  store.update(running.event_id, { status: 'running' });
  const echo = store.create({ kind: 'webhook', rule_id: null, dry_run: false, document: 5 });
  store.discard(echo.event_id);
  await store.flush();

  const reopened = await openEventStore(dir, createMemoryLogger());
  assert.deepEqual(
    reopened.unfinishedDeliveries().map((e) => [e.event_id, e.status, e.document, e.trigger]),
    [
      [waiting.event_id, 'queued', 3, 'added'],
      [running.event_id, 'running', 4, 'updated'],
    ],
  );
  assert.equal(reopened.get(echo.event_id), undefined);
  await reopened.close();
});
