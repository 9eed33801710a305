import '../../../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPaperlessClient } from '../../../../server/dms/paperless-client.js';
import { startSimulator, type Simulator } from '../../../../tools/paperless-sim/simulator.js';
import type { DmsClient } from '../../../../server/dms/types.js';
import type { Trace } from '../../../../server/engine/engine.js';
import { inlineEvaluator } from '../../../../server/eval/eval-pool.js';
import { createMemoryLogger } from '../../../../server/log.js';
import { loadedRule } from '../../../helpers/loaded-rule.js';
import {
  bulkWrittenOutcome,
  changedFields,
  refusedOutcome,
  unwrittenOutcome,
} from '../../../../server/runs/pipeline/apply-outcome.js';
import type { RunContext } from '../../../../server/runs/pipeline/plan-run.js';
import { createRunPipeline, type RunPipeline } from '../../../../server/runs/pipeline/run-pipeline.js';
import type { DocumentPlan } from '../../../../server/runs/pipeline/plan-changes.js';

// Seed: tag 9 is rules-processed; no correspondent is called "No Such Company".
const HALF_WRITABLE = loadedRule({
  id: 'half-writable',
  actions: [{ add_tags: ['rules-processed'] }, { set_correspondent: 'No Such Company' }],
});
const MANUAL: RunContext = { trigger: 'manual', source: 'manual', eventId: null, dryRun: false };

describe('changedFields: the one meaning of "changed"', () => {
  const plan = { changed: ['title', 'tags'], failures: { tags: 'unknown tag' } } as unknown as DocumentPlan;

  test('dry: the planned fields without a known failure', () => {
    assert.deepEqual(changedFields(plan, unwrittenOutcome(plan), true), ['title']);
  });

  test('real: only what reached the dms; a refused field is not changed', () => {
    assert.deepEqual(changedFields(plan, unwrittenOutcome(plan), false), []);
    assert.deepEqual(changedFields(plan, refusedOutcome(plan, 'the dms said no'), false), []);
    const refused = refusedOutcome(plan, 'the dms said no');
    assert.deepEqual(refused.failures, { title: 'the dms said no', tags: 'unknown tag' }, "the planner's reason stays");
  });

  test('a bulk edit counts the fields it carried', () => {
    const clean = { changed: ['tags', 'correspondent'], failures: {} } as unknown as DocumentPlan;
    assert.deepEqual(changedFields(clean, bulkWrittenOutcome(clean), false), ['tags', 'correspondent']);
  });
});

describe('the run pipeline over the simulator', () => {
  let sim: Simulator;
  let dms: DmsClient;
  let pipeline: RunPipeline;
  let held: string | null = null;
  const history: Trace[] = [];
  const marks: number[] = [];

  before(async () => {
    sim = await startSimulator();
    dms = createPaperlessClient({ url: sim.url, token: sim.token, retries: 0 });
    pipeline = createRunPipeline({
      dms,
      evaluator: inlineEvaluator(),
      history: { append: (traces) => history.push(...traces) },
      echoes: {
        mark: (id) => marks.push(id),
        settle: () => undefined,
        refused: () => undefined,
        holdReason: () => held,
      },
      logger: createMemoryLogger(),
      now: () => new Date('2025-03-15T12:00:00Z'),
    });
  });
  after(async () => {
    await dms.close();
    await sim.close();
  });

  test('plan, write and record hand each other values: a dry plan can be recorded twice, the same way', async () => {
    const doc = await dms.getDocument(7);
    const planned = await pipeline.plan(doc, [HALF_WRITABLE], { ...MANUAL, dryRun: true });
    assert.equal(planned.kind, 'planned');
    if (planned.kind !== 'planned') return;
    // The planner already knows the correspondent cannot be written: not a change, a failure.
    assert.deepEqual(planned.plan.changed, ['tags']);
    assert.match(planned.plan.failures.correspondent ?? '', /No Such Company/);
    const outcome = await pipeline.write(planned);
    assert.deepEqual(outcome.written, []);
    const first = await pipeline.record(planned, outcome);
    const second = await pipeline.record(planned, outcome);
    assert.deepEqual({ ...first, traces: undefined }, { ...second, traces: undefined });
    // Dry: the tag would be written, the correspondent cannot be: changed, and an error.
    assert.deepEqual(
      { matched: first.matched, changed: first.changed, errors: first.errors },
      {
        matched: 1,
        changed: true,
        errors: 1,
      },
    );
    assert.ok(!sim.store.getDocument(7)?.tags.includes(9), 'a dry run writes nothing');
  });

  test('a real run writes what it can, and counts the document changed and in error', async () => {
    const doc = await dms.getDocument(8);
    const record = await pipeline.run(doc, [HALF_WRITABLE], MANUAL);
    assert.ok(sim.store.getDocument(8)?.tags.includes(9));
    assert.deepEqual(
      { matched: record.matched, changed: record.changed, errors: record.errors },
      {
        matched: 1,
        changed: true,
        errors: 1,
      },
    );
    assert.deepEqual(
      record.traces[0].actions.map((a) => a.status),
      ['applied', 'failed'],
    );
    assert.equal(history.at(-1)?.id, record.traces[0].id, 'the trace is in the history');
  });

  test('the loop breaker holds automatic runs only: a held webhook run writes nothing and says why', async () => {
    held = 'Loop breaker: written too often';
    try {
      const doc = await dms.getDocument(10);
      const before = marks.length;
      const webhook = await pipeline.run(doc, [HALF_WRITABLE], { ...MANUAL, source: 'webhook', trigger: 'updated' });
      assert.equal(marks.length, before, 'nothing was marked, so nothing was written');
      assert.equal(webhook.changed, false);
      assert.match(webhook.traces[0].error ?? '', /Loop breaker/);

      const manual = await pipeline.run(doc, [HALF_WRITABLE], MANUAL);
      assert.equal(manual.changed, true, 'a person may always write');
    } finally {
      held = null;
    }
  });

  test('a document that cannot be planned still gets one error trace per rule, and the dms error', async () => {
    const doc = await dms.getDocument(9);
    // A document naming a tag the cached vocabulary lacks makes the plan step refetch it; the dms refuses.
    const fault = sim.faults.inject({ route: 'GET /api/tags/', kind: 'status', status: 500 });
    try {
      const record = await pipeline.run({ ...doc, tags: [...doc.tags, 9999] }, [HALF_WRITABLE, HALF_WRITABLE], MANUAL);
      assert.equal(record.traces.length, 2, JSON.stringify(record.traces));
      assert.ok(
        record.traces.every((t) => t.status === 'error' && /The dms failed/.test(t.error ?? '')),
        JSON.stringify(record.traces.map((t) => [t.status, t.error])),
      );
      assert.ok(record.dmsError);
      assert.equal(record.changed, false);
    } finally {
      sim.faults.remove(fault.id);
    }
  });
});
