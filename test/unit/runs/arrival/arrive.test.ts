import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DmsDocument } from '../../../../server/dms/types.js';
import { createMemoryLogger } from '../../../../server/log.js';
import type { Arrival, ArrivalRead } from '../../../../server/runs/arrival/arrive.js';
import type { AutomaticRunner } from '../../../../server/runs/arrival/automatic-runner.js';
import { failedRunRetry } from '../../../../server/runs/arrival/failed-run-retry.js';
import { arrivalDeps } from '../../../helpers/arrival-deps.js';
import { dmsDocument } from '../../../helpers/dms-document.js';
import { tempDir } from '../../../helpers/temp-dir.js';

/** The front door over a fresh ledger; the runner refuses while `refuse` holds and counts its runs. */
function rig(retry = failedRunRetry(60_000, 3), journal?: Parameters<typeof arrivalDeps>[5]) {
  const state = { refuse: false, runs: 0, failTraces: [] as string[] };
  const runner: AutomaticRunner = {
    run: () => {
      state.runs++;
      return Promise.resolve({ matched: 1, changed: 0, errors: 0, failure: state.refuse ? 'the dms said 400' : null });
    },
    fail: (_doc, _triggers, _ctx, message) => void state.failTraces.push(message),
  };
  const dms = { getDocuments: () => Promise.resolve([] as DmsDocument[]) };
  const deps = arrivalDeps(tempDir(), dms, createMemoryLogger(), runner, retry, journal);
  const arrival = (read: ArrivalRead | (() => Promise<ArrivalRead>), over: Partial<Arrival> = {}): Arrival => ({
    document: 1,
    from: 'webhook',
    eventId: 1,
    dryRun: false,
    facts: { said: ['updated'] },
    read: typeof read === 'function' ? read : () => Promise.resolve(read),
    ...over,
  });
  return { ...deps, state, arrival };
}

describe('the front door', () => {
  it('a refused run is tried again with growing pauses, then given up; the same state later is not run', async () => {
    const r = rig();
    const doc = dmsDocument(1, { title: 'Rechnung' });
    r.state.refuse = true;
    const kinds = [];
    for (let i = 0; i < 3; i++) {
      const outcome = await r.arrive(r.arrival({ document: doc }));
      kinds.push(outcome.kind === 'retry' ? `retry ${outcome.inMs}` : outcome.kind);
    }
    assert.deepEqual(kinds, ['retry 60000', 'retry 120000', 'failed']);
    assert.deepEqual(
      r.echoes.failures().map((f) => [f.document, f.attempts]),
      [[1, 3]],
    );
    const again = await r.arrive(r.arrival({ document: doc }));
    assert.equal(again.kind, 'given-up');
    assert.equal(r.state.runs, 3, 'the given-up state is not run again');
    // A changed document is news: it runs, and its success ends the failure.
    r.state.refuse = false;
    const changed = await r.arrive(r.arrival({ document: { ...doc, title: 'Rechnung 2' } }));
    assert.equal(changed.kind, 'done');
    assert.deepEqual(r.echoes.failures(), []);
  });

  it("the service's own write is its echo; a state handled without writing runs again by delivery, not by catch-up", async () => {
    const r = rig();
    const written = dmsDocument(1, { title: 'Written' });
    r.echoes.mark(1);
    r.echoes.settle(1, written);
    assert.deepEqual(await r.arrive(r.arrival({ document: written })), { kind: 'skipped', reason: 'echo' });

    const seen = dmsDocument(2, { title: 'Seen' });
    assert.equal((await r.arrive(r.arrival({ document: seen }, { document: 2 }))).kind, 'done');
    assert.equal((await r.arrive(r.arrival({ document: seen }, { document: 2 }))).kind, 'done', 'a delivery runs it');
    const byCatchUp = await r.arrive(
      r.arrival({ document: seen }, { document: 2, from: 'catchup', facts: { changedSince: Number.MAX_SAFE_INTEGER } }),
    );
    assert.deepEqual(byCatchUp, { kind: 'skipped', reason: 'handled' });
  });

  it('an added arrival is never an echo, and a repeat of a handled addition is dropped', async () => {
    const r = rig();
    const doc = dmsDocument(1, { title: 'Written by a job' });
    r.echoes.mark(1);
    r.echoes.settle(1, doc);
    const added = r.arrival({ document: doc }, { facts: { said: ['added'] } });
    assert.equal((await r.arrive(added)).kind, 'done');
    assert.deepEqual(await r.arrive(added), { kind: 'skipped', reason: 'handled' });
    assert.equal(r.state.runs, 1);
  });

  it('a read the dms failed is retried, then the delivery fails with its traces saying so', async () => {
    const r = rig(failedRunRetry(60_000, 2));
    const read = () => Promise.reject(new Error('503 Service Unavailable'));
    const first = await r.arrive(r.arrival(read));
    assert.equal(first.kind, 'retry');
    const second = await r.arrive(r.arrival(read));
    assert.equal(second.kind, 'failed');
    assert.match(second.kind === 'failed' ? second.message : '', /503 Service Unavailable \(tried 2 times/);
    assert.equal(r.state.failTraces.length, 1);
    assert.equal(r.state.runs, 0);
  });

  it('passes a wait on, and a document catch-up finds gone is no news', async () => {
    const r = rig();
    assert.deepEqual(await r.arrive(r.arrival({ retryInMs: 250 })), { kind: 'wait', inMs: 250 });
    assert.deepEqual(await r.arrive(r.arrival({ missing: null })), { kind: 'gone' });
    const missing = await r.arrive(r.arrival({ missing: 'Document 1 was not found in the dms (404).' }));
    assert.equal(missing.kind, 'failed');
    assert.equal(r.state.failTraces.length, 1, "a delivery's missing document is in its rules' traces");
  });

  it("waits for the start's reconciliation before it asks for the lane, which that pass holds document by document", async () => {
    const order: string[] = [];
    let startPass!: () => void;
    const r = rig(undefined, (lane) => ({
      // The pass begins after the arrival came, and holds the document's lane while it reconciles it (recover.ts).
      ready: new Promise<void>((resolve) => (startPass = resolve)).then(() =>
        lane.exclusive(1, async () => void order.push('reconciled at start')),
      ),
      reconcile: async () => {
        order.push('reconciled in the hold');
        return false;
      },
      completed: () => null,
      ensureTraces: () => undefined,
      recognise: () => undefined,
    }));
    const outcome = r.arrive(r.arrival({ document: dmsDocument(1, { title: 'Rechnung' }) }));
    await new Promise((resolve) => setImmediate(resolve));
    startPass();
    // Holding the lane while waiting for the pass would leave both waiting: the file would end with this pending.
    assert.equal((await outcome).kind, 'done');
    assert.deepEqual(order, ['reconciled at start', 'reconciled in the hold']);
  });
});
