import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { openEventStore } from '../../server/history/event-store.js';
import { createJsonlFile } from '../../server/jsonl-file.js';
import type { JournalIo } from '../../server/history/group-commit.js';
import { createMemoryLogger } from '../../server/log.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'dms-rules-journal-file-'));

describe('events journal file', () => {
  it('after a replace, appends go to the new file, not to the one the rename replaced', async () => {
    const file = path.join(tmp(), 'events.jsonl');
    const journal = createJsonlFile(file);
    await journal.append('old 1\n');
    await journal.replace('snapshot\n');
    await journal.append('new 1\n');
    assert.equal(fs.readFileSync(file, 'utf8'), 'snapshot\nnew 1\n');
    await journal.close();
  });

  it('a write that fails rejects (the delivery is answered 503, not 202)', async () => {
    const dir = tmp();
    // A folder where the file should be: the open fails.
    const file = path.join(dir, 'events.jsonl');
    fs.mkdirSync(file);
    const journal = createJsonlFile(file);
    await assert.rejects(journal.append('x\n'), /EISDIR/);
    await journal.close();
  });

  it('with the real file, deliveries that arrive together share one append, and every one is there after a restart', async () => {
    const dir = tmp();
    const real = createJsonlFile(path.join(dir, 'events.jsonl'));
    const appends: string[] = [];
    const io: JournalIo = {
      append: (text) => (appends.push(text), real.append(text)),
      replace: (text) => real.replace(text),
    };
    const store = await openEventStore(dir, createMemoryLogger(), { io });
    const accepted = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const { event_id } = store.create({
          kind: 'webhook',
          rule_id: null,
          dry_run: true,
          document: i + 1,
          trigger: 'updated',
        });
        await store.flush();
        return event_id;
      }),
    );
    assert.equal(appends.length, 1, 'one append (one O_DSYNC write) for the group');
    await real.close();

    // No close of the store: as after a crash, only what the 202s waited for is on disk.
    const reopened = await openEventStore(dir, createMemoryLogger());
    assert.deepEqual(
      reopened.unfinishedDeliveries().map((e) => e.event_id),
      accepted,
    );
    await reopened.close();
  });
});
