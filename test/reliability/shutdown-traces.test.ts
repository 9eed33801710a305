import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { openTraceStore } from '../../server/history/trace-store.js';
import { createMemoryLogger } from '../../server/log.js';
import { startJob, startRig, waitForEvent } from '../api/support/jobs-kit.js';

// Titles differ per document, so every write is a single PATCH; with a slow PATCH the page in hand
// outlives the shutdown grace and its traces arrive after the trace history was told to close.
const RULES = `
rules:
  - id: retitle-all
    description: every document gets a title with its id
    actions:
      - set_title: "Doc {{ doc.id }} checked"
`;

test('a stop during a busy run loses no trace: every document the run finished has its trace on disk', async () => {
  const rig = await startRig(RULES, {}, { generate: { count: 24, seed: 3 } });
  const dataDir = rig.server.dataDir;
  rig.sim.faults.inject({ route: 'PATCH /api/documents/{id}/', kind: 'latency', ms: 900 });
  const patched = () => rig.sim.counts()['PATCH /api/documents/{id}/'] ?? 0;
  const started = await startJob(rig.server.url, 'rule_id=retitle-all&dry_run=false');
  assert.equal(started.status, 200, JSON.stringify(started.body));
  await waitForEvent(rig.server.url, started.body.event_id as number, () => patched() > 0);
  await rig.server.close();

  // The run's in-flight writes end on their own; give them (bounded) time, then count what reached the disk.
  const deadline = Date.now() + 20_000;
  let onDisk = 0;
  while (Date.now() < deadline) {
    const store = await openTraceStore({
      dir: path.join(dataDir, 'traces'),
      retention: 1000,
      logger: createMemoryLogger(),
    });
    onDisk = store.count();
    await store.close();
    if (onDisk > 0 && onDisk >= patched()) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await rig.sim.close();
  assert.ok(patched() > 0, 'the stop happened while documents were being written');
  assert.ok(onDisk >= patched(), `${onDisk} traces on disk for ${patched()} documents written`);
});
