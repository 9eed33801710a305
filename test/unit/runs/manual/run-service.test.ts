import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DmsClient } from '../../../../server/dms/types.js';
import { createDocumentLane } from '../../../../server/runs/lane/document-lane.js';
import { createRunService } from '../../../../server/runs/manual/run-service.js';
import type { RunPipeline } from '../../../../server/runs/pipeline/run-pipeline.js';
import { dmsDocument } from '../../../helpers/dms-document.js';

describe('a manual run', () => {
  it("waits for the start's reconciliation outside the lane, then reconciles its document inside the hold", async () => {
    const order: string[] = [];
    const lane = createDocumentLane();
    let startPass!: () => void;
    // The pass begins after the person asked, and holds the document's lane while it reconciles it (recover.ts).
    const ready = new Promise<void>((resolve) => (startPass = resolve)).then(() =>
      lane.exclusive(7, async () => void order.push('reconciled at start')),
    );
    const dms = {
      url: 'http://dms',
      getDocument: async (id: number) => (order.push(`read ${id}`), dmsDocument(id, { title: 'Rechnung' })),
    } as unknown as DmsClient;
    const pipeline = {
      run: async () => {
        order.push('run');
        return { traces: [], matched: 0, changed: false, errors: 0, dmsError: null };
      },
    } as unknown as RunPipeline;
    const runs = createRunService({
      dms,
      rules: { loadedRules: () => [], getRule: () => undefined, rulesForTry: async () => [] },
      pipeline,
      loop: { release: () => undefined },
      lane,
      recovery: {
        ready,
        reconcile: async (doc) => {
          order.push(`reconciled ${doc} in the hold`);
          return false;
        },
      },
    });
    const traces = runs.runManual({ document: 7, ruleId: null, dryRun: false });
    await new Promise((resolve) => setImmediate(resolve));
    startPass();
    // Holding the lane while waiting for the pass would leave both waiting: the file would end with this pending.
    assert.deepEqual(await traces, []);
    assert.deepEqual(order, ['reconciled at start', 'reconciled 7 in the hold', 'read 7', 'run']);
  });
});
