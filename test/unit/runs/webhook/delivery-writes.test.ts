import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DmsClient, DmsDocument } from '../../../../server/dms/types.js';
import { createMemoryLogger } from '../../../../server/log.js';
import { createDocumentLane } from '../../../../server/runs/lane/document-lane.js';
import type { ApplyOutcome } from '../../../../server/runs/pipeline/apply-outcome.js';
import type { PlannedRun, RunPlan } from '../../../../server/runs/pipeline/plan-run.js';
import type { RunRecord } from '../../../../server/runs/pipeline/record-run.js';
import type { RunPipeline } from '../../../../server/runs/pipeline/run-pipeline.js';
import { createDeliveryWrites } from '../../../../server/runs/webhook/delivery-writes.js';

const doc = (id: number) => ({ id }) as DmsDocument;

/** A plan with a note: written on its own (no bulk edit, no dms request from `writePlans` itself). */
const planned = (document: DmsDocument, eventId: number): PlannedRun =>
  ({
    kind: 'planned',
    document,
    rules: [],
    ctx: { trigger: 'updated', eventId, dryRun: false, source: 'webhook' },
    startedAt: 0,
    plan: { patch: {}, tags: null, customFields: null, create: [], notes: ['seen'], failures: {}, changed: [] },
  }) as unknown as PlannedRun;

describe('webhook deliveries written together', () => {
  it('a delivery still waiting for its lane does not hold up the others: a job holding that lane finishes', async () => {
    const lane = createDocumentLane();
    const written: number[] = [];
    let secondPlanned!: () => void;
    const planning = new Promise<void>((resolve) => (secondPlanned = resolve));
    const pipeline: RunPipeline = {
      plan: (document, _rules, ctx) => {
        if (document.id === 2) secondPlanned();
        return Promise.resolve(planned(document, ctx.eventId as number));
      },
      write: (run) => {
        written.push(run.document.id);
        return Promise.resolve({ written: [], failures: {}, superseded: {}, dmsError: null } as ApplyOutcome);
      },
      record: (run: RunPlan) =>
        Promise.resolve({ traces: [], matched: 0, changed: run.kind === 'planned' } as unknown as RunRecord),
      run: () => Promise.reject(new Error('not used')),
      fail: () => ({}) as RunRecord,
    };
    const writes = createDeliveryWrites({
      dms: {} as DmsClient,
      pipeline,
      echoes: { mark() {}, settle() {}, refused() {}, holdReason: () => null },
      logger: createMemoryLogger(),
      concurrency: 2,
    });

    // Document 1's lane: a run by hand, then a job's page of documents 1 and 2 (it takes 1, then waits for 2).
    let endManualRun!: () => void;
    const ended = new Promise<void>((resolve) => (endManualRun = resolve));
    const manualRun = lane.exclusive(1, () => ended);
    const job = lane.exclusiveAll([1, 2], () => Promise.resolve('page written'));
    // A burst for both documents: delivery 2 takes its lane and plans while delivery 1 queues behind the job.
    const round = writes.round([101, 102]);
    const deliver = (eventId: number, id: number) =>
      lane
        .exclusive(id, () => {
          writes.inLane(eventId);
          return writes.pipeline.run(doc(id), [], { trigger: 'updated', eventId, dryRun: false, source: 'webhook' });
        })
        .finally(() => round.leave(eventId));
    const deliveries = [deliver(101, 1), deliver(102, 2)];
    await planning;
    endManualRun();

    await manualRun;
    assert.equal(await job, 'page written');
    const records = await Promise.all(deliveries);
    round.close();
    assert.deepEqual(
      records.map((r) => r.changed),
      [true, true],
    );
    assert.deepEqual(written, [2, 1]);
  });
});
