import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DmsDocument } from '../../../../server/dms/types.js';
import { createBatchRead } from '../../../../server/runs/webhook/batch-read.js';
import type { QueuedDelivery } from '../../../../server/runs/webhook/webhook-queue.js';

describe('deliveries read together', () => {
  it('a read its delivery never took is let go when the run ends, not kept with the document', async () => {
    const lists: number[][] = [];
    const batch = createBatchRead(
      {
        getDocuments: (ids) => {
          lists.push([...ids]);
          return Promise.resolve(ids.map((id) => ({ id, content: 'x' }) as DmsDocument));
        },
      },
      { generation: () => 0 },
      () => [],
    );
    const [first, second]: QueuedDelivery[] = [1, 2].map((document) => ({
      document,
      triggers: ['updated'],
      event_id: 100 + document,
    }));
    await batch.readNow([first, second]);
    assert.equal((await batch.take(second))?.id, 2);
    // The first run ended before it read (the write journal already had it done).
    batch.drop(first);
    assert.equal(await batch.take(first), null);
    await batch.readNow([first]);
    assert.deepEqual(lists, [[1, 2], [1]]);
  });
});
