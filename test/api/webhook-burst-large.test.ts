import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MARK_EDITED } from './support/burst-kit.js';
import { deliver, startRig, type Rig } from './support/jobs-kit.js';
import { arrivalsWaiting } from '../helpers/arrivals.js';

// Ten times the 200 waiting deliveries the service once refused beyond; the bench's burst is 10,000 (bench/burst-bench.ts).
const DOCUMENTS = 2_000;
const REPEATS = 100;

/** Webhook event records in the events journal as it is on disk: the last line of each, less those dropped. */
function webhookEventsOnDisk(dataDir: string): number {
  const records = new Map<number, string>();
  for (const line of fs.readFileSync(path.join(dataDir, 'events.jsonl'), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const record = JSON.parse(line) as { event_id?: number; kind?: string; drop?: number };
    if (typeof record.drop === 'number') records.delete(record.drop);
    else if (typeof record.event_id === 'number') records.set(record.event_id, record.kind ?? '');
  }
  return [...records.values()].filter((kind) => kind === 'webhook').length;
}

describe('a bulk edit of 2,000 documents in Paperless', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig(MARK_EDITED);
  });
  after(async () => rig?.close());

  it('is accepted in whole, the queue and the event store holding one entry per document', async () => {
    const { server, sim } = rig;
    // The runs that start wait at the dms: what is counted is what the service keeps, not how fast it runs.
    sim.faults.inject({ route: /^GET \/api\/documents\/(\d+\/)?$/, kind: 'hold' });
    // Ids the simulator does not have: nothing here reads or writes them.
    const ids = Array.from({ length: DOCUMENTS }, (_, i) => 100_000 + i);
    // Repeats of the last ids: those wait behind the rest (a repeat of one already running would queue a follow-up).
    const deliveries = [...ids, ...ids.slice(-REPEATS)];
    const statuses = new Map<number, number>();
    let duplicates = 0;
    let next = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < deliveries.length) {
          const doc = deliveries[next++];
          const res = await deliver(server.url, doc);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.body.duplicate) duplicates++;
        }
      }),
    );

    assert.deepEqual([...statuses], [[202, DOCUMENTS + REPEATS]], 'every delivery answered 202');
    assert.equal(duplicates, REPEATS, 'a repeat joins the delivery already waiting');
    assert.equal(await arrivalsWaiting(server.url), DOCUMENTS, 'waiting or running, one per document');
    assert.equal(webhookEventsOnDisk(server.dataDir), DOCUMENTS, 'one durable event per document');
  });
});
