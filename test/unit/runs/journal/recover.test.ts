import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { DmsDocument } from '../../../../server/dms/types.js';
import { createMemoryLogger } from '../../../../server/log.js';
import { readValuesOf } from '../../../../server/runs/journal/journal-records.js';
import { recoverJournal } from '../../../../server/runs/journal/recover.js';
import { createDocumentLane } from '../../../../server/runs/lane/document-lane.js';
import { openWriteJournal } from '../../../../server/runs/journal/write-journal.js';
import { dmsDocument } from '../../../helpers/dms-document.js';
import { tempDir } from '../../../helpers/temp-dir.js';

const DMS = 'http://dms';
const before = dmsDocument(20, { title: 'Scan 6', notes: [] });

/** A dms holding one document; the PATCHes it is sent change it and are counted. */
function dmsHolding(doc: DmsDocument) {
  const sent: Array<Record<string, unknown>> = [];
  let current = doc;
  return {
    sent,
    dms: {
      getDocument: async () => current,
      updateDocument: async (_id: number, patch: Record<string, unknown>) => {
        sent.push(patch);
        current = { ...current, ...patch, modified: '2026-11-29T02:07:14.379Z' };
        return current;
      },
      bulkEdit: async () => undefined,
      trashDocument: async () => undefined,
    },
  };
}

describe('recovering the write journal at start', () => {
  it('a request the last start found not applied and sent itself, before a kill cut off its answer too, is found applied', async () => {
    const file = path.join(tempDir(), 'write-journal.jsonl');
    const journal = openWriteJournal({ file, logger: createMemoryLogger() });
    await journal.begin([
      {
        dms: DMS,
        doc: 20,
        event: 6,
        source: 'webhook',
        rules: ['plus', 'stamp'],
        read: readValuesOf(before),
        writes: [
          { kind: 'patch', patch: { title: 'Scan 6+' } },
          { kind: 'note', text: 'Eingang #20' },
        ],
      },
    ]);
    await journal.close();

    // The first start finds the title not applied and sends it; the kill comes before its answer is recorded.
    const first = openWriteJournal({ file, logger: createMemoryLogger() });
    const dms = dmsHolding(before);
    const cut = {
      ...dms.dms,
      updateDocument: (id: number, patch: Record<string, unknown>) => {
        void dms.dms.updateDocument(id, patch);
        return new Promise<never>(() => {});
      },
    };
    void recoverJournal({ journal: first, dms: cut, dmsKey: DMS, logger: createMemoryLogger() });
    while (dms.sent.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await first.close();

    // The next start: the title is the run's own, so the run is applied and its state the service's.
    const second = openWriteJournal({ file, logger: createMemoryLogger() });
    const own: number[] = [];
    const report = await recoverJournal({
      journal: second,
      dms: dms.dms,
      dmsKey: DMS,
      logger: createMemoryLogger(),
      ownState: (doc) => own.push(doc.id),
    });
    assert.deepEqual(report, { applied: 1, notApplied: 0, completed: 0, left: 0 });
    assert.equal(dms.sent.length, 1, 'the title is not sent again');
    assert.deepEqual(own, [20]);
    assert.deepEqual(second.unfinished(), []);
    await second.close();
  });

  it("reads and finishes a document's run holding its lane: a path writing the document meanwhile goes first", async () => {
    const file = path.join(tempDir(), 'write-journal.jsonl');
    const cut = openWriteJournal({ file, logger: createMemoryLogger() });
    const run = {
      dms: DMS,
      doc: 20,
      event: 6,
      source: 'webhook' as const,
      rules: ['plus'],
      read: readValuesOf(before),
    };
    await cut.begin([{ ...run, writes: [{ kind: 'patch', patch: { title: 'Scan 6+' } }] }]);
    await cut.close();

    const journal = openWriteJournal({ file, logger: createMemoryLogger() });
    const dms = dmsHolding(before);
    const reads: string[] = [];
    const lane = createDocumentLane();
    let release!: () => void;
    const holder = lane.exclusive(20, () => new Promise<void>((resolve) => (release = resolve)));
    const recovery = recoverJournal({
      journal,
      dms: { ...dms.dms, getDocument: (id: number) => (reads.push(`read ${id}`), dms.dms.getDocument()) },
      dmsKey: DMS,
      logger: createMemoryLogger(),
      hold: (doc, work) => lane.exclusive(doc, work),
    });
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(reads, [], 'the document is not read while another path holds it');
    release();
    await holder;
    assert.deepEqual(await recovery, { applied: 0, notApplied: 1, completed: 0, left: 0 });
    assert.deepEqual(reads, ['read 20']);
    await journal.close();
  });
});
