import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { openEventStore } from '../../../server/history/event-store.js';
import { createMemoryLogger } from '../../../server/log.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'dms-rules-salvage-'));

/** A journal with `count` queued deliveries (documents 1..count) and one finished job, as a running service leaves it. */
async function journalWith(count: number): Promise<{ dir: string; file: string; ids: number[] }> {
  const dir = tmp();
  const store = await openEventStore(dir, createMemoryLogger());
  const job = store.create({ kind: 'job', rule_id: 'r', dry_run: true });
  store.update(job.event_id, { status: 'done' });
  const ids: number[] = [];
  for (let d = 1; d <= count; d++) {
    ids.push(store.create({ kind: 'webhook', rule_id: null, dry_run: false, document: d, trigger: 'added' }).event_id);
    await store.flush();
  }
  await store.close();
  return { dir, file: path.join(dir, 'events.jsonl'), ids };
}

const asideFiles = (dir: string, prefix: string) =>
  fs.readdirSync(dir).filter((f) => f.startsWith(`${prefix}.corrupt-`));

describe('a damaged events journal loses only the damaged records', () => {
  it('torn mid-record (an interrupted append): every complete record is kept, the torn line moved aside', async () => {
    const { dir, file, ids } = await journalWith(20);
    const text = fs.readFileSync(file, 'utf8');
    const lastLineStart = text.lastIndexOf('\n', text.length - 2) + 1;
    const cut = lastLineStart + 40;
    fs.truncateSync(file, cut);

    const logger = createMemoryLogger();
    const store = await openEventStore(dir, logger);
    assert.deepEqual(
      store.unfinishedDeliveries().map((e) => e.event_id),
      ids.slice(0, -1),
      'every delivery but the torn one is still queued',
    );
    const aside = asideFiles(dir, 'events.jsonl');
    assert.equal(aside.length, 1);
    assert.equal(fs.readFileSync(path.join(dir, aside[0]), 'utf8'), `${text.slice(lastLineStart, cut)}\n`);
    assert.ok(
      logger.lines.some(
        (l) =>
          l.startsWith('warn') && l.includes('events journal: 20 records kept, 1 torn line') && l.includes(aside[0]),
      ),
      logger.lines.join('\n'),
    );
    // The journal was rewritten on a line boundary: a new record is not glued to the torn half line.
    const next = store.create({ kind: 'webhook', rule_id: null, dry_run: false, document: 99 });
    await store.flush();
    await store.close();
    const reopened = await openEventStore(dir, createMemoryLogger());
    assert.equal(reopened.get(next.event_id)?.document, 99);
    assert.equal(asideFiles(dir, 'events.jsonl').length, 1, 'nothing more to move aside');
    await reopened.close();
  });

  it('a garbled line in the middle costs that record only', async () => {
    const { dir, file, ids } = await journalWith(10);
    const rows = fs.readFileSync(file, 'utf8').split('\n');
    const victim = rows.findIndex((l) => l.includes(`"event_id":${ids[4]},`));
    rows[victim] = rows[victim].slice(0, 30) + '\u0000\u00ff garbage ' + rows[victim].slice(45);
    fs.writeFileSync(file, rows.join('\n'));

    const logger = createMemoryLogger();
    const store = await openEventStore(dir, logger);
    assert.deepEqual(
      store.unfinishedDeliveries().map((e) => e.event_id),
      ids.filter((_, i) => i !== 4),
    );
    assert.ok(
      logger.lines.some((l) => l.includes('events journal: 10 records kept, 1 unreadable line (line 7)')),
      logger.lines.join('\n'),
    );
    const aside = asideFiles(dir, 'events.jsonl');
    assert.equal(fs.readFileSync(path.join(dir, aside[0]), 'utf8'), `${rows[victim]}\n`);
    await store.close();
  });

  it('a line that parses but is not an event record is set aside, not trusted', async () => {
    const { dir, file, ids } = await journalWith(3);
    fs.appendFileSync(file, '{"event_id":"7","kind":"webhook"}\n[1,2]\n');
    const logger = createMemoryLogger();
    const store = await openEventStore(dir, logger);
    assert.deepEqual(
      store.unfinishedDeliveries().map((e) => e.event_id),
      ids,
    );
    assert.ok(logger.lines.some((l) => l.includes('2 unreadable lines')));
    await store.close();
  });

  it('ids of records dropped before the last compaction are not handed out again', async () => {
    const dir = tmp();
    const store = await openEventStore(dir, createMemoryLogger());
    store.create({ kind: 'job', rule_id: 'r', dry_run: true });
    const echo = store.create({ kind: 'webhook', rule_id: null, dry_run: false, document: 5 });
    store.discard(echo.event_id);
    await store.close();
    const reopened = await openEventStore(dir, createMemoryLogger());
    assert.equal(reopened.get(echo.event_id), undefined);
    assert.equal(reopened.create({ kind: 'job', rule_id: 'r', dry_run: true }).event_id, echo.event_id + 1);
    await reopened.close();
  });
});

/** `events.json` as the service wrote it before the journal (lowdb, indented). */
function legacyFile(count: number): { text: string; ids: number[] } {
  const events = Array.from({ length: count }, (_, i) => ({
    event_id: i + 1,
    kind: 'webhook',
    rule_id: null,
    dry_run: false,
    document: 100 + i,
    reverts: null,
    status: i === 0 ? 'done' : 'queued',
    total: null,
    processed: 0,
    matched: 0,
    changed: 0,
    errors: 0,
    created_at: '2026-11-01T10:00:00.000Z',
    started_at: null,
    finished_at: null,
    error: null,
    report: null,
    trigger: 'added',
  }));
  return { text: JSON.stringify({ next_id: count + 3, events }, null, 2), ids: events.map((e) => e.event_id) };
}

describe('upgrading from events.json', () => {
  it('an intact events.json is moved into the journal: deliveries stay queued, ids keep increasing', async () => {
    const dir = tmp();
    const { text, ids } = legacyFile(5);
    fs.writeFileSync(path.join(dir, 'events.json'), text);
    const store = await openEventStore(dir, createMemoryLogger());
    assert.deepEqual(
      store.unfinishedDeliveries().map((e) => e.document),
      [101, 102, 103, 104],
    );
    assert.equal(store.get(ids[0])?.status, 'done');
    assert.equal(
      store.create({ kind: 'job', rule_id: 'r', dry_run: true }).event_id,
      8,
      'next_id of the old file is honoured',
    );
    await store.close();
    assert.equal(
      fs.existsSync(path.join(dir, 'events.json')),
      false,
      'the old file is gone once the journal holds its records',
    );
    const reopened = await openEventStore(dir, createMemoryLogger());
    assert.equal(reopened.list().length, 6);
    await reopened.close();
  });

  it('a torn events.json keeps every record before the tear', async () => {
    const dir = tmp();
    const { text } = legacyFile(30);
    const cut = text.indexOf('"event_id": 23') + 5;
    fs.writeFileSync(path.join(dir, 'events.json'), text.slice(0, cut));
    const logger = createMemoryLogger();
    const store = await openEventStore(dir, logger);
    assert.deepEqual(
      store.unfinishedDeliveries().map((e) => e.event_id),
      Array.from({ length: 21 }, (_, i) => i + 2),
    );
    assert.ok(
      logger.lines.some((l) => l.includes('22 records kept, 1 unreadable part moved aside')),
      logger.lines.join('\n'),
    );
    assert.equal(asideFiles(dir, 'events.json').length, 1);
    await store.close();
  });

  it('a garbled record in the middle of events.json costs that record only', async () => {
    const dir = tmp();
    const { text } = legacyFile(10);
    const at = text.indexOf('"event_id": 4');
    // A damaged quote desynchronises a naive scan; the record after it must still be found.
    fs.writeFileSync(path.join(dir, 'events.json'), text.slice(0, at + 3) + '\u0000"}{' + text.slice(at + 20));
    const store = await openEventStore(dir, createMemoryLogger());
    assert.deepEqual(
      store
        .list({ limit: 100 })
        .map((e) => e.event_id)
        .reverse(),
      [1, 2, 3, 5, 6, 7, 8, 9, 10],
    );
    await store.close();
  });
});
