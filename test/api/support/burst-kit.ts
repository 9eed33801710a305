import { heldAtDms } from '../../helpers/arrivals.js';
import { TEST_TIMINGS } from '../../helpers/test-server.js';
import { deliver, startRig, type Rig } from './jobs-kit.js';

// What the webhook burst tests share: one rule that writes every document it runs on, two run slots, and a way
// to keep both slots busy so a burst delivered meanwhile waits as a whole.

/** Tags every updated document `rules-processed`: a bulk edit for a batch, nothing for one already tagged. */
export const MARK_EDITED = `
rules:
  - id: mark-edited
    on: [updated]
    actions:
      - add_tags: [rules-processed]
`;

/** The simulator and the service with MARK_EDITED and two webhook run slots. */
export function startBurstRig(): Promise<Rig> {
  return startRig(
    MARK_EDITED,
    {},
    {},
    { timings: { ...TEST_TIMINGS, webhook: { ...TEST_TIMINGS.webhook, concurrency: 2 } } },
  );
}

/**
 * Fills both run slots with deliveries of two new documents (with `tags`) whose reads are held at the dms, and
 * answers the function that lets them go. Whatever the simulator serves, the burst delivered meanwhile waits whole.
 */
export async function holdRunSlots(rig: Rig, tags: number[] = []): Promise<() => void> {
  const { sim, server } = rig;
  const slots = [0, 1].map((i) => sim.addDocument({ title: `Slot ${i}`, tags }).id);
  const holds = slots.map((id) => sim.faults.inject({ route: `GET /api/documents/${id}/`, kind: 'hold', times: 1 }));
  for (const id of slots) await deliver(server.url, id);
  for (const hold of holds) await heldAtDms(hold, 1);
  return () => holds.forEach((hold) => sim.faults.release(hold.id));
}
