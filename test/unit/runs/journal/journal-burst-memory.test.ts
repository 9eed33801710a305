import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createMemoryLogger } from '../../../../server/log.js';
import { readValuesOf } from '../../../../server/runs/journal/journal-records.js';
import {
  openWriteJournal,
  type JournalRun,
  type NewRun,
  type WriteJournal,
} from '../../../../server/runs/journal/write-journal.js';
import { dmsDocument } from '../../../helpers/dms-document.js';
import { tempDir } from '../../../helpers/temp-dir.js';

const logger = createMemoryLogger();
const DMS = 'http://dms';

const run = (doc: number, extra: Partial<NewRun> = {}): NewRun => ({
  dms: DMS,
  doc,
  event: 100 + doc,
  source: 'webhook',
  rules: ['mark'],
  read: readValuesOf(
    dmsDocument(doc, {
      title: `Rechnung ${doc}`,
      tags: [3, 1],
      custom_fields: [{ field: 2, value: 'x' }],
      permissions: { view: { users: [1], groups: [] }, change: { users: [1], groups: [4] } },
    }),
  ),
  writes: [
    { kind: 'tags', add: [9], remove: [1] },
    { kind: 'note', text: 'checked' },
  ],
  ...extra,
});

/** What a caller is given for a run, as plain data (a held run is read back as a fresh copy each time). */
const plain = (r: JournalRun | null | undefined) => structuredClone(r);

describe('write journal memory through a burst', () => {
  it('holds the runs of a burst that ended packed, and only the unfinished ones whole', async () => {
    const journal = openWriteJournal({ file: path.join(tempDir(), 'write-journal.jsonl'), logger });
    const handles = await journal.begin(Array.from({ length: 300 }, (_, i) => run(i + 1)));
    for (const handle of handles.slice(0, 299)) {
      handle.outcome(0, { ok: true });
      handle.outcome(1, { ok: true, note: 7 });
      handle.end('applied');
    }
    assert.deepEqual(
      { runs: journal.stats().runs, whole: journal.stats().whole, spilled: journal.stats().spilled },
      { runs: 300, whole: 1, spilled: 299 },
      'every run is kept; only the one still writing is held as objects, the texts of the others on disk',
    );
    handles[299].end('not_applied');
    assert.equal(journal.stats().whole, 0);
    await journal.close();
  });

  it('gives a finished run back exactly as it was written, through every lookup and after a reopen', async () => {
    const file = path.join(tempDir(), 'write-journal.jsonl');
    const journal = openWriteJournal({ file, logger });
    const [applied, partial, unattributed] = await journal.begin([
      run(1, { added: '2026-01-02T03:04:05Z' }),
      run(2),
      run(3, { event: null, source: 'intent' }),
    ]);
    applied.outcome(0, { ok: true });
    applied.outcome(1, { ok: true, note: 41 });
    applied.end('applied');
    partial.outcome(0, { ok: false, error: 'refused (400)' });
    partial.outcome(1, { ok: true, reconciled: true, note: 42 });
    partial.end('partial', true);
    unattributed.end('not_applied');
    const written = [applied, partial, unattributed].map((h) => plain(h.run));
    assert.equal(written[0]?.end?.status, 'applied', 'the writer sees its own run ended');

    const check = (j: WriteJournal) => {
      assert.deepEqual(plain(j.runsOf(DMS, 1)[0]), written[0]);
      assert.deepEqual(plain(j.appliedFor(102, DMS, 2)), written[1]);
      assert.deepEqual(plain(j.runsOf(DMS, 3)[0]), written[2]);
      assert.deepEqual(j.runsOfEvent(101).map(plain), [written[0]]);
      assert.equal(j.addedHandled(DMS, 1, '2026-01-02T03:04:05Z'), true);
      assert.equal(j.addedHandled(DMS, 2, '2026-01-02T03:04:05Z'), false);
      assert.equal(j.appliedFor(101, 'http://other-dms', 1), null);
      // A copy a caller changes is its own: the journal's run stays as written.
      j.runsOf(DMS, 1)[0].entry.read.tags.push(99);
      assert.deepEqual(plain(j.runsOf(DMS, 1)[0]), written[0]);
    };
    check(journal);
    await journal.close();
    const again = openWriteJournal({ file, logger });
    check(again);
    await again.close();
  });

  it('keeps an outcome that comes after the run ended', async () => {
    const file = path.join(tempDir(), 'write-journal.jsonl');
    const journal = openWriteJournal({ file, logger });
    const [handle] = await journal.begin([run(5)]);
    handle.outcome(0, { ok: true });
    handle.end('applied');
    handle.outcome(1, { ok: true, note: 8 });
    assert.equal(handle.run.outcomes[1]?.note, 8);
    assert.deepEqual(plain(journal.runsOf(DMS, 5)[0]), plain(handle.run));
    await journal.close();
    const again = openWriteJournal({ file, logger });
    assert.deepEqual(plain(again.runsOf(DMS, 5)[0]), plain(handle.run));
    assert.equal(again.stats().whole, 0);
    await again.close();
  });

  it('gives every kept run back as written after a compaction started its rest file again', async () => {
    const file = path.join(tempDir(), 'write-journal.jsonl');
    const journal = openWriteJournal({ file, logger, maxRuns: 20, perDocument: 1 });
    const written: Array<JournalRun | undefined> = [];
    for (let doc = 1; doc <= 30; doc++) {
      const [handle] = await journal.begin([run(doc)]);
      handle.outcome(0, { ok: true });
      handle.outcome(1, { ok: true, note: 1000 + doc });
      handle.end('applied');
      written[doc] = plain(handle.run) as JournalRun;
    }
    await journal.close(); // waits for the compaction the 21st run started
    assert.ok(fs.statSync(`${file}.rests`).size > 0);
    for (let doc = 1; doc <= 30; doc++)
      assert.deepEqual(plain(journal.runsOf(DMS, doc)[0]), written[doc], `doc ${doc}`);
    const again = openWriteJournal({ file, logger });
    for (let doc = 1; doc <= 30; doc++) assert.deepEqual(plain(again.runsOf(DMS, doc)[0]), written[doc], `doc ${doc}`);
    assert.equal(again.stats().spilled, 30);
    await again.close();
  });

  it('gives a closed journal its own runs after the file was opened again in the same process', async () => {
    const file = path.join(tempDir(), 'write-journal.jsonl');
    const first = openWriteJournal({ file, logger });
    const [handle] = await first.begin([run(7, { rules: ['mark'] })]);
    handle.outcome(0, { ok: true });
    handle.end('applied');
    const written = plain(handle.run);
    await first.close();
    // A restarted service owns the file now; its compaction starts the rest file again with another run's text
    // of the same length where the closed journal's run lay.
    const again = openWriteJournal({ file, logger, maxRuns: 1, perDocument: 1, documents: 1 });
    const [other] = await again.begin([run(8, { rules: ['mask'] })]);
    other.outcome(0, { ok: true });
    other.end('applied');
    await again.close();
    assert.deepEqual(plain(first.runsOf(DMS, 7)[0]), written, 'a job still winding down reads the run it wrote');
  });

  it('keeps finished runs in memory when their rest file cannot be written', async () => {
    const file = path.join(tempDir(), 'write-journal.jsonl');
    fs.mkdirSync(`${file}.rests`); // a folder where the file would be
    const journal = openWriteJournal({ file, logger });
    const [handle] = await journal.begin([run(7)]);
    handle.outcome(0, { ok: true });
    handle.end('applied');
    assert.equal(journal.stats().spilled, 0);
    assert.deepEqual(plain(journal.runsOf(DMS, 7)[0]), plain(handle.run));
    await journal.close();
  });
});
