import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createMemoryLogger } from '../../../../server/log.js';
import { readValuesOf } from '../../../../server/runs/journal/journal-records.js';
import { openWriteJournal } from '../../../../server/runs/journal/write-journal.js';
import { dmsDocument } from '../../../helpers/dms-document.js';
import { tempDir } from '../../../helpers/temp-dir.js';

const logger = createMemoryLogger();
const read = readValuesOf(dmsDocument(7, { title: 'Rechnung' }));
const run = (doc: number, event: number | null = 1) => ({
  dms: 'http://dms',
  doc,
  event,
  source: 'webhook',
  rules: ['plus'],
  read,
  writes: [{ kind: 'patch' as const, patch: { title: 'Rechnung+' } }],
});

describe('write journal', () => {
  it('keeps begun runs, their outcomes and ends across a reopen', async () => {
    const file = path.join(tempDir(), 'write-journal.jsonl');
    const journal = openWriteJournal({ file, logger });
    const [done] = await journal.begin([run(7), run(8)]);
    done.outcome(0, { ok: true });
    done.end('applied');
    await journal.close();

    const again = openWriteJournal({ file, logger });
    assert.equal(again.appliedFor(1, 'http://dms', 7)?.entry.doc, 7);
    assert.equal(again.appliedFor(1, 'http://dms', 8), null, 'begun, never ended: not applied as far as it knows');
    assert.deepEqual(
      again.unfinished().map((r) => r.entry.doc),
      [8],
    );
    assert.equal(again.appliedFor(1, 'http://other-dms', 7), null, 'keyed by the dms as well as the id');
    await again.close();
  });

  it('syncs once for all the runs begun together (group commit), before begin resolves', async () => {
    const file = path.join(tempDir(), 'write-journal.jsonl');
    const journal = openWriteJournal({ file, logger });
    await journal.begin(Array.from({ length: 50 }, (_, i) => run(i + 1)));
    assert.equal(journal.stats().syncs, 1);
    assert.equal(fs.readFileSync(file, 'utf8').trim().split('\n').length, 50, 'on disk when begin resolved');
    await journal.close();
  });

  it('reads past a line torn by a kill and appends after it cleanly', async () => {
    const file = path.join(tempDir(), 'write-journal.jsonl');
    const journal = openWriteJournal({ file, logger });
    await journal.begin([run(1)]);
    await journal.close();
    fs.appendFileSync(file, '{"t":"run","run":"torn","doc":2,"wri');
    const again = openWriteJournal({ file, logger });
    await again.begin([run(3)]);
    await again.close();
    const reopened = openWriteJournal({ file, logger });
    assert.deepEqual(
      reopened
        .unfinished()
        .map((r) => r.entry.doc)
        .sort(),
      [1, 3],
    );
    await reopened.close();
  });

  it('gives every run of an event, oldest first, across a reopen: each run of a document, not only the newest', async () => {
    const file = path.join(tempDir(), 'write-journal.jsonl');
    const journal = openWriteJournal({ file, logger });
    await journal.begin([run(1, 4), run(2, 4)]);
    await journal.begin([run(3, 5)]);
    await journal.begin([run(1, 4)]);
    await journal.close();
    const again = openWriteJournal({ file, logger });
    assert.deepEqual(
      again.runsOfEvent(4).map((r) => r.entry.doc),
      [1, 2, 1],
    );
    assert.deepEqual(again.runsOfEvent(6), []);
    await again.close();
  });

  it('compacts to the newest runs per document, keeping unfinished runs and those of kept events', async () => {
    const file = path.join(tempDir(), 'write-journal.jsonl');
    const journal = openWriteJournal({ file, logger, maxRuns: 10, perDocument: 2, keepEvent: (e) => e === 99 });
    const [kept] = await journal.begin([run(1, 99)]);
    kept.end('applied');
    await journal.begin([run(2, 5)]); // never ended
    for (let i = 0; i < 12; i++) {
      const [h] = await journal.begin([run(3, 6)]);
      h.end('applied');
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    await journal.close();
    const again = openWriteJournal({ file, logger });
    assert.ok(again.stats().runs < 14, `kept ${again.stats().runs} of 14 runs`);
    assert.equal(again.appliedFor(99, 'http://dms', 1)?.entry.doc, 1, 'a kept event survives compaction');
    assert.equal(again.unfinished().length, 1, 'an unfinished run survives compaction');
    assert.ok(again.runsOf('http://dms', 3).length <= 3, 'older runs of a document are dropped');
    await again.close();
  });
});
