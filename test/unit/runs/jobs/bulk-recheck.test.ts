import '../../../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPaperlessClient } from '../../../../server/dms/paperless-client.js';
import { startSimulator, type Simulator } from '../../../../tools/paperless-sim/simulator.js';
import type { DmsClient, DmsDocument } from '../../../../server/dms/types.js';
import { editedSinceRead } from '../../../../server/runs/jobs/bulk-recheck.js';

let sim: Simulator;
let dms: DmsClient;
describe('the recheck before a bulk write', () => {
  before(async () => {
    sim = await startSimulator();
    dms = createPaperlessClient({ url: sim.url, token: sim.token });
  });
  after(async () => {
    await dms.close();
    await sim.close();
  });

  const readAll = async (ids: number[]) =>
    new Map(
      await Promise.all(
        ids.map(async (id) => [id, { document: await dms.getDocument(id) }] as [number, { document: DmsDocument }]),
      ),
    );

  test('a document a person edited after the page was read leaves its bulk group, in one request for the page', async () => {
    const read = await readAll([2, 3, 4, 5]);
    await dms.updateDocument(3, { title: 'Von Hand umbenannt' });
    await dms.bulkEdit([5], 'add_tag', { tag: 3 });
    const groups = [
      { ops: [{ method: 'modify_tags' as const, parameters: { add_tags: [9], remove_tags: [] } }], documents: [2, 3] },
      { ops: [{ method: 'modify_tags' as const, parameters: { add_tags: [6], remove_tags: [] } }], documents: [4, 5] },
    ];
    sim.resetCounts();
    assert.deepEqual(await editedSinceRead(dms, groups, read), [3, 5]);
    assert.deepEqual(
      groups.map((g) => g.documents),
      [[2], [4]],
    );
    assert.equal(sim.counts()['GET /api/documents/'], 1);
  });

  test('when the dms cannot answer, every grouped document goes the careful way', async () => {
    const read = await readAll([2, 4]);
    const groups = [{ ops: [], documents: [2, 4] }];
    const fault = sim.faults.inject({ route: 'GET /api/documents/', kind: 'status', status: 400 });
    try {
      assert.deepEqual(await editedSinceRead(dms, groups, read), [2, 4]);
      assert.deepEqual(groups[0].documents, []);
    } finally {
      sim.faults.remove(fault.id);
    }
  });
});
