import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createMemoryLogger } from '../../../../server/log.js';
import { documentState } from '../../../../server/runs/echo/document-state.js';
import { createDocumentStates } from '../../../../server/runs/echo/document-states.js';
import { openDocumentTable } from '../../../../server/runs/echo/document-table.js';
import { createLoopBreaker } from '../../../../server/runs/echo/loop-breaker.js';
import { dmsDocument } from '../../../helpers/dms-document.js';
import { tempDir } from '../../../helpers/temp-dir.js';

const open = (file: string) => openDocumentTable({ file, logger: createMemoryLogger(), flushIntervalMs: 60_000 });

describe('echo records through a burst of writes (entries compacted as they are saved)', () => {
  it('keeps every value of a saved entry, and the loop breaker goes on counting in it', async () => {
    const file = path.join(tempDir(), 'echo-ledger.json');
    const table = open(file);
    const states = createDocumentStates(table, () => false);
    let now = 1_000_000;
    const loop = createLoopBreaker(table, { maxWrites: 3, windowMs: 60_000, now: () => now });
    const docs = Array.from({ length: 50 }, (_, i) => dmsDocument(i + 1, { title: `Rechnung ${i + 1}` }));
    for (const doc of docs) {
      loop.counted(doc.id);
      states.adopt(doc, { readAt: doc.modified, fields: ['tags'] });
    }
    await table.persist();

    for (const doc of docs) {
      assert.equal(states.isOwnWrite(doc), true, `document ${doc.id} is known as the service's own write`);
      assert.equal(states.stateOf(doc.id), documentState(doc));
    }
    // Two more writes after the save: counted in the entry as saved, so the third write holds the document.
    now += 1000;
    loop.counted(1);
    assert.equal(loop.holdReason(1), null);
    loop.counted(1);
    assert.match(loop.holdReason(1) ?? '', /3 times/);
    await table.close();

    const again = open(file);
    assert.deepEqual(again.get(1)?.writes, [1_000_000, 1_001_000, 1_001_000]);
    assert.equal(again.get(2)?.state, documentState(docs[1]));
    assert.deepEqual(again.get(2)?.write, { readAt: docs[1].modified, fields: ['tags'] });
    await again.close();
  });
});
