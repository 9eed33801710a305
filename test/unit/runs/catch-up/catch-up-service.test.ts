import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { DmsClient, DmsDocument } from '../../../../server/dms/types.js';
import { openEventStore } from '../../../../server/history/event-store.js';
import { createMemoryLogger } from '../../../../server/log.js';
import {
  createCatchUpService,
  pollMinutesOf,
  type CatchUpDeps,
} from '../../../../server/runs/catch-up/catch-up-service.js';
import { openCursorStore } from '../../../../server/runs/catch-up/cursor-store.js';
import type { AutomaticRunner } from '../../../../server/runs/arrival/automatic-runner.js';
import { arrivalDeps } from '../../../helpers/arrival-deps.js';
import { dmsDocument } from '../../../helpers/dms-document.js';
import { tempDir } from '../../../helpers/temp-dir.js';

const doc = (id: number, modified: string) => dmsDocument(id, { modified });

/** The catch-up service over a dms whose reachability and failures the test switches; the watch ticks every 20 ms. */
async function rig(
  state: { reachable: boolean; failing: boolean; docs: DmsDocument[] },
  retryBaseMs = 30,
  firstStart = false,
) {
  const dir = tempDir();
  const logger = createMemoryLogger();
  const events = await openEventStore(dir, logger);
  const ran: number[] = [];
  const dms: Pick<DmsClient, 'pages' | 'getDocuments' | 'getDocument'> = {
    getDocuments: async () => {
      throw new Error('not used');
    },
    getDocument: async (id) => state.docs.find((d) => d.id === id) as DmsDocument,
    pages: async function* (query) {
      if (state.failing) throw new Error('connect ECONNREFUSED');
      const since = Date.parse(String(query?.filters?.modified__gte));
      const docs = state.docs.filter((d) => Date.parse(d.modified) >= since);
      yield { count: docs.length, documents: docs };
    } as DmsClient['pages'],
  };
  const cursorFile = path.join(dir, 'cursor.json');
  const cursor = openCursorStore(cursorFile, logger);
  if (!firstStart) await cursor.write({ since: '2026-01-01T00:00:00Z', last_heard_at: null });
  const runner: AutomaticRunner = {
    run: async (d) => {
      ran.push(d.id);
      return { matched: 1, changed: 0, errors: 0, failure: null };
    },
    fail: () => undefined,
  };
  const { lane, arrive } = arrivalDeps(dir, dms, logger, runner);
  const deps: CatchUpDeps = {
    dms,
    events,
    lane,
    arrive,
    queued: () => false,
    cursor,
    logger,
    dryRun: () => false,
    startFrom: null,
    pollMinutes: () => 0,
    dmsReachable: async () => state.reachable,
    retryBaseMs,
    tickMs: 20,
  };
  return { service: createCatchUpService(deps), events, ran, cursorFile, logger };
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(check());
};

describe('when catch-ups run', () => {
  it("a first start's cursor is on disk when start resolves: a kill right after it still catches up what came next", async () => {
    const state = { reachable: true, failing: false, docs: [] };
    const { service, events, cursorFile, logger } = await rig(state, 60_000, true);
    await service.start();
    // Read as the next process would, without waiting for anything.
    const since = openCursorStore(cursorFile, logger).read()?.since;
    assert.ok(since !== undefined && !Number.isNaN(Date.parse(since)), `a cursor is stored: ${since}`);
    await service.stop();
    await events.close();
  });

  it('when the dms is reachable again after being down', async () => {
    const state = { reachable: false, failing: true, docs: [doc(1, '2026-02-01T00:00:00Z')] };
    // A retry would come only after a minute: what starts the next catch-up is the dms coming back.
    const { service, events, ran } = await rig(state, 60_000);
    await service.start(); // the start's catch-up fails: the dms is down
    await until(() => events.list({ kind: 'catchup' }).some((e) => e.status === 'failed'));
    state.reachable = true;
    state.failing = false;
    await until(() => events.list({ kind: 'catchup' }).some((e) => e.status === 'done' && e.catchup?.updated === 1));
    assert.deepEqual(ran, [1]);
    await service.stop();
    await events.close();
  });

  it('a failed catch-up retries with backoff and says so until it succeeds', async () => {
    const state = { reachable: true, failing: true, docs: [doc(2, '2026-02-01T00:00:00Z')] };
    const { service, events, ran } = await rig(state);
    await service.start();
    await until(() => events.list({ kind: 'catchup' }).filter((e) => e.status === 'failed').length >= 2);
    const failed = events.list({ kind: 'catchup', status: 'failed' })[0];
    assert.match(String(failed.error), /ECONNREFUSED.*It retries at/s);
    assert.ok(failed.catchup?.next_retry_at);
    assert.match(String(service.state().last_error), /ECONNREFUSED/);
    state.failing = false;
    await until(() => service.state().last_error === null);
    assert.deepEqual(ran, [2]);
    await service.stop();
    await events.close();
  });
});

it('polls every 5 minutes by default without an API token, not at all with one; SVC_POLL_MINUTES decides when set', () => {
  assert.equal(pollMinutesOf({ pollMinutes: null, apiToken: null }), 5);
  assert.equal(pollMinutesOf({ pollMinutes: null, apiToken: 'x'.repeat(32) }), 0);
  assert.equal(pollMinutesOf({ pollMinutes: 0, apiToken: null }), 0);
  assert.equal(pollMinutesOf({ pollMinutes: 15, apiToken: 'x'.repeat(32) }), 15);
});
