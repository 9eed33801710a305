import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TEST_TIMINGS } from '../helpers/test-server.js';
import { heldAtDms } from '../helpers/arrivals.js';
import { deliver, startRig, waitForEvent, type Rig } from './support/jobs-kit.js';

// A rule that is not idempotent: every run appends one more "+".
const RULES = `
rules:
  - id: plus
    on: [updated]
    actions:
      - set_title: "{{ doc.title }}+"
`;

describe('a write Paperless applied but whose answer never came', () => {
  let rig: Rig;
  before(async () => {
    // The client gives up on an answer after 2 s; the held answer below never comes in that time.
    rig = await startRig(RULES, {}, {}, { timings: { ...TEST_TIMINGS, dmsTimeoutMs: 2000 } });
  });
  after(async () => rig?.close());

  it('is found applied when the delivery is tried again, not sent a second time', async () => {
    const doc = rig.sim.addDocument({ title: 'Scan', tags: [] }).id;
    // Paperless applies the PATCH and its answer waits: the service times out not knowing whether it was applied.
    // Every answer to it waits, the client's own retries' too (they send the same value again).
    const held = rig.sim.faults.inject({ route: `PATCH /api/documents/${doc}/`, kind: 'hold', after: true });
    const accepted = await deliver(rig.server.url, doc);
    await heldAtDms(held, 1);

    const event = await waitForEvent(rig.server.url, accepted.body.event_id);
    rig.sim.faults.release(held.id);
    assert.equal(event.status, 'done', JSON.stringify(event));
    assert.equal(
      rig.sim.store.getDocument(doc)?.title,
      'Scan+',
      'the retry found the first run applied: one "+", no second run',
    );
  });
});
