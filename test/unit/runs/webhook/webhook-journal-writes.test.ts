import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DmsClient } from '../../../../server/dms/types.js';
import { openEventStore } from '../../../../server/history/event-store.js';
import type { JournalIo } from '../../../../server/history/group-commit.js';
import { createMemoryLogger } from '../../../../server/log.js';
import { failedRunRetry } from '../../../../server/runs/arrival/failed-run-retry.js';
import type { AutomaticRunner } from '../../../../server/runs/arrival/automatic-runner.js';
import { createWebhookService, DEFAULT_WEBHOOK_OPTIONS } from '../../../../server/runs/webhook/webhook-service.js';
import { arrivalDeps } from '../../../helpers/arrival-deps.js';
import { dmsDocument } from '../../../helpers/dms-document.js';
import { tempDir } from '../../../helpers/temp-dir.js';

const doc = (id: number) => dmsDocument(id);

/** The webhook service over a journal that records its appends; the runs succeed or fail as `failing` says. */
async function rig(failing = new Set<number>()) {
  const dir = tempDir();
  const logger = createMemoryLogger();
  const appends: string[] = [];
  const io: JournalIo = {
    append: (text) => (appends.push(text), Promise.resolve()),
    replace: () => Promise.resolve(),
  };
  // No timer flush during the test: only a commit (an acceptance) writes.
  const events = await openEventStore(dir, logger, { io, flushIntervalMs: 600_000 });
  const dms = { getDocument: (id: number) => Promise.resolve(doc(id)) } as unknown as DmsClient;
  const runner: AutomaticRunner = {
    run: (d) =>
      Promise.resolve({
        matched: 1,
        changed: 0,
        errors: 0,
        failure: failing.has(d.id) ? 'the dms refused the write' : null,
      }),
    fail: () => undefined,
  };
  const { lane, arrive } = arrivalDeps(dir, dms, logger, runner, failedRunRetry(60_000, 1));
  const webhook = createWebhookService(
    { dms, events, lane, arrive, logger, dryRun: () => true },
    DEFAULT_WEBHOOK_OPTIONS,
  );
  const turn = () => new Promise((r) => setImmediate(r));
  // Finished in memory, then a few more turns: time for a write of its own to have been made, if it were.
  const finished = async (id: number) => {
    while (!['done', 'failed'].includes(events.get(id)?.status ?? '')) await turn();
    for (let i = 0; i < 5; i++) await turn();
  };
  const linesOf = (text: string) =>
    text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const close = async () => {
    await webhook.stop();
    await events.close();
  };
  return { webhook, events, appends, finished, linesOf, close };
}

describe('webhook deliveries in the events journal', () => {
  it("only the acceptance is written before the 202; the run's end rides the next acceptance's append", async () => {
    const r = await rig();
    const first = await r.webhook.receive({ document: 1, trigger: 'updated' });
    assert.equal(r.appends.length, 1, 'the acceptance: one append before the answer');
    assert.deepEqual(
      r.linesOf(r.appends[0]).map((l) => [l.event_id, l.status]),
      [[first.event_id, 'queued']],
    );

    await r.finished(first.event_id);
    assert.equal(r.events.get(first.event_id)?.status, 'done');
    assert.equal(r.appends.length, 1, 'running and done cost no fsync of their own');

    const second = await r.webhook.receive({ document: 2, trigger: 'updated' });
    assert.equal(r.appends.length, 2);
    assert.deepEqual(
      r.linesOf(r.appends[1]).map((l) => [l.event_id, l.status]),
      [
        [first.event_id, 'done'],
        [second.event_id, 'queued'],
      ],
      'one append carries the finished delivery and the new one',
    );
    await r.close();
  });

  it('a delivery that failed for good is written with the next append too, and a stop writes what is left', async () => {
    const r = await rig(new Set([3]));
    const failed = await r.webhook.receive({ document: 3, trigger: 'updated' });
    await r.finished(failed.event_id);
    assert.equal(r.events.get(failed.event_id)?.status, 'failed');
    assert.equal(r.appends.length, 1);

    await r.close();
    const last = r.linesOf(r.appends.at(-1) ?? '');
    assert.deepEqual(
      last.map((l) => [l.event_id, l.status]),
      [[failed.event_id, 'failed']],
      'closing the store writes the end it had not written yet',
    );
  });
});
