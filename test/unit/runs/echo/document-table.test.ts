import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createMemoryLogger } from '../../../../server/log.js';
import { openDocumentTable } from '../../../../server/runs/echo/document-table.js';
import { tempDir } from '../../../helpers/temp-dir.js';

const open = (file: string, capacity?: number) =>
  openDocumentTable({ file, logger: createMemoryLogger(), flushIntervalMs: 60_000, ...(capacity ? { capacity } : {}) });

const logLines = (file: string) =>
  fs.existsSync(`${file}.changes`) ? fs.readFileSync(`${file}.changes`, 'utf8').split('\n').filter(Boolean) : [];

describe('the echo records table (persistence)', () => {
  it('a save after a few changes appends those documents only, not the whole table', async () => {
    const file = path.join(tempDir(), 'echo-ledger.json');
    const table = open(file);
    table.clear(); // the next save is a whole snapshot
    for (let id = 1; id <= 3000; id++) table.touch(id).state = `s${id}`;
    await table.persist();
    assert.equal(logLines(file).length, 0);
    table.touch(5).state = 'changed';
    table.touch(6).state = 'changed too';
    await table.persist();
    assert.equal(logLines(file).length, 2);
    await table.close();

    const again = open(file);
    assert.equal(again.get(5)?.state, 'changed');
    assert.equal(again.get(6)?.state, 'changed too');
    assert.equal(again.get(3000)?.state, 's3000');
    assert.equal([...again.entries()].length, 3000);
  });

  it('a change made to an entry that was read is saved with the next write once it is said', async () => {
    const file = path.join(tempDir(), 'echo-ledger.json');
    const table = open(file);
    table.touch(1).state = 'a';
    await table.persist();
    const entry = table.get(1);
    if (entry) entry.own = true;
    table.changed(1);
    await table.persist();
    assert.equal(open(file).get(1)?.own, true);
  });

  it('reading entries adds nothing to the change log: only changed documents are appended', async () => {
    const file = path.join(tempDir(), 'echo-ledger.json');
    const table = open(file);
    table.clear();
    for (let id = 1; id <= 50; id++) table.touch(id).state = `s${id}`;
    await table.persist();
    for (let id = 1; id <= 50; id++) table.get(id);
    table.touch(7).state = 'changed';
    await table.persist();
    assert.equal(logLines(file).length, 1);
  });

  it('ignores a torn last line and log lines older than the snapshot', async () => {
    const file = path.join(tempDir(), 'echo-ledger.json');
    const table = open(file);
    table.touch(1).state = 'old';
    await table.persist();
    const stale = fs.readFileSync(`${file}.changes`, 'utf8');
    table.clear();
    table.touch(1).state = 'new';
    await table.persist(); // after clear: a snapshot of a new generation
    // A kill between the snapshot's rename and the log's removal leaves the old log behind, then a torn append.
    fs.writeFileSync(`${file}.changes`, `${stale}[1,[2,"tor`);
    const again = open(file);
    assert.equal(again.get(1)?.state, 'new');
    assert.equal([...again.entries()].length, 1);
  });

  it('a change saved after a restart over a torn last line survives the next restart', async () => {
    const file = path.join(tempDir(), 'echo-ledger.json');
    const table = open(file);
    table.touch(1).state = 'a';
    await table.persist();
    fs.appendFileSync(`${file}.changes`, '[0,2,"tor'); // a kill mid-append
    const reopened = open(file);
    reopened.touch(3).state = 'c';
    await reopened.persist();
    const again = open(file);
    assert.equal(again.get(1)?.state, 'a');
    assert.equal(again.get(3)?.state, 'c');
  });

  it('a save that failed is made whole by the next one, and a cleared entry stays cleared', async () => {
    const file = path.join(tempDir(), 'echo-ledger.json');
    const table = open(file);
    table.touch(1).state = 'before the clear';
    await table.persist();
    table.clear();
    table.touch(2).state = 'b';
    fs.mkdirSync(path.join(file, 'in the way'), { recursive: true }); // the snapshot's rename fails
    await table.persist();
    fs.rmSync(file, { recursive: true });
    table.touch(3).state = 'c';
    await table.persist();
    const again = open(file);
    assert.equal(again.get(1), undefined);
    assert.equal(again.get(2)?.state, 'b');
    assert.equal(again.get(3)?.state, 'c');
  });

  it('keeps the most recently touched documents within capacity across a restart', async () => {
    const file = path.join(tempDir(), 'echo-ledger.json');
    const table = open(file, 2);
    for (const id of [1, 2, 3]) table.touch(id).state = `s${id}`;
    await table.persist();
    const again = open(file, 2);
    assert.deepEqual(
      [...again.entries()].map(([id]) => id),
      [2, 3],
    );
  });
});
