import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Trace } from '../../server/engine/model.js';
import { arrivalsSettled, heldAtDms } from '../helpers/arrivals.js';
import fs from 'node:fs';
import path from 'node:path';
import type { EventRecord } from '../../server/history/event-types.js';
import { startSimulator } from '../../tools/paperless-sim/simulator.js';
import { API_TOKEN, call, startTestServer, tempDir } from '../helpers/test-server.js';
import { deliver, startRig, waitForEvent, type Rig } from './support/jobs-kit.js';
import { startReceiver } from './support/notify-kit.js';

const RULES = `
rules:
  - id: greet-new
    on: [added]
    actions:
      - notify: { to: hook, message: "new {{ doc.id }}" }
  - id: mark-edited
    on: [updated]
    actions:
      - add_tags: [rules-processed]
`;

describe('merged webhook deliveries keep every trigger they merged', () => {
  let rig: Rig;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  before(async () => {
    receiver = await startReceiver();
    rig = await startRig(RULES, { SVC_NOTIFY_TARGETS: JSON.stringify({ hook: { url: `${receiver.url}/hook` } }) });
  });
  after(async () => {
    await rig?.close();
    await receiver?.close();
  });

  it('an added and an updated delivery merged into one run fire the added notification and the updated rule', async () => {
    const doc = rig.sim.addDocument({ title: 'Scan', content: 'Lieferschein', tags: [] }).id;
    // The document's first run is held at its read, so the two deliveries below wait behind it and merge into one run.
    const hold = rig.sim.faults.inject({ route: `GET /api/documents/${doc}/`, kind: 'hold', times: 1 });
    await deliver(rig.server.url, doc);
    await heldAtDms(hold, 1);
    const added = await deliver(rig.server.url, doc, 'document_added');
    const updated = await deliver(rig.server.url, doc);
    assert.equal(updated.body.duplicate, true);
    assert.equal(updated.body.event_id, added.body.event_id);
    rig.sim.faults.release(hold.id);
    await arrivalsSettled(rig.server.url);
    assert.equal((await waitForEvent(rig.server.url, added.body.event_id)).status, 'done');

    const traces = (
      await call<{ traces: Trace[] }>(rig.server.url, `/api/traces?event_id=${added.body.event_id}`, {
        token: API_TOKEN,
      })
    ).body.traces;
    const byRule = new Map(traces.map((t) => [t.rule_id, t]));
    assert.equal(byRule.get('greet-new')?.actions[0]?.status, 'applied', JSON.stringify(traces));
    assert.notEqual(byRule.get('mark-edited')?.status, 'skipped', JSON.stringify(traces));
    const news = receiver.received.filter((r) => r.body.includes(`new ${doc}`));
    assert.equal(news.length, 1, 'the added notification is sent once for the merged run');
  });

  it('a merged delivery still waiting at a stop runs as both kinds after the next start', async () => {
    const sim = await startSimulator();
    const rulesDir = tempDir();
    const dataDir = tempDir();
    fs.writeFileSync(path.join(rulesDir, 'rules.yml'), RULES);
    const env = {
      SVC_DMS_URL: sim.url,
      SVC_DMS_TOKEN: sim.token,
      SVC_NOTIFY_TARGETS: JSON.stringify({ hook: { url: `${receiver.url}/hook` } }),
    };
    const before = receiver.received.length;
    let server = await startTestServer(env, { rulesDir, dataDir });
    try {
      const doc = sim.addDocument({ title: 'Scan', content: 'Lieferschein', tags: [] }).id;
      // The document's first run is held at its read through the stop, so the merged delivery never starts.
      const hold = sim.faults.inject({ route: `GET /api/documents/${doc}/`, kind: 'hold' });
      const first = await deliver(server.url, doc);
      await heldAtDms(hold, 1);
      await deliver(server.url, doc, 'document_added');
      assert.equal((await deliver(server.url, doc)).body.duplicate, true);
      await server.close();
      sim.faults.release(hold.id);
      sim.faults.remove(hold.id);

      server = await startTestServer(env, { rulesDir, dataDir });
      // The run the stop cut short takes over the merged delivery queued behind it: one run with every trigger.
      const event: EventRecord = await waitForEvent(server.url, first.body.event_id);
      assert.equal(event.status, 'done');
      assert.deepEqual(event.triggers, ['added', 'updated']);
      const traces = (
        await call<{ traces: Trace[] }>(server.url, `/api/traces?event_id=${first.body.event_id}`, { token: API_TOKEN })
      ).body.traces;
      // A notify-only rule sends for the `added` trigger alone: run with neither trigger it would stay silent.
      const greeted = receiver.received.slice(before).filter((r) => r.body.includes(`new ${doc}`));
      assert.equal(greeted.length, 1, JSON.stringify(traces));
      const tags = sim.store.getDocument(doc)?.tags ?? [];
      assert.equal(tags.length, 1, 'the updated rule tagged the document');
    } finally {
      await server.close();
      await sim.close();
    }
  });
});
