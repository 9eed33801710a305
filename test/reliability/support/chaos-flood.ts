import type { SimProfileName } from '../../../server/dms/demo/profiles.js';
import { startSimulator } from '../../../tools/paperless-sim/simulator.js';
import { startReceiver } from '../../api/support/notify-kit.js';
import { arrivalsWaiting } from '../../helpers/arrivals.js';
import type { ChildServer } from '../../helpers/child-server.js';
import { API_TOKEN } from '../../helpers/test-server.js';
import {
  doneWithoutTraces,
  killLive,
  pendingIntents,
  seeded,
  serviceDirs,
  startLive,
  startRelay,
  tracesOf,
  until,
} from './chaos-kit.js';

// Three side effects that show a second run: a title that grows by one "+" per run, a note made from a template,
// and a notification sent on every run (`when: always`, its Idempotency-Key names the run). Every rule runs on
// `updated` too, so the service's own echoes taken for a person's edit would show as well.
const RULES = `
rules:
  - id: plus
    on: [added, updated]
    actions:
      - set_title: "{{ doc.title }}+"
  - id: stamp
    on: [added, updated]
    actions:
      - add_note: "Eingang {{ doc.original_file_name }} #{{ doc.id }}"
  - id: tell
    on: [added, updated]
    actions:
      - notify: { to: hook, when: always, title: "#{{ doc.id }}#", message: "{{ doc.title }}" }
`;

/** Requests that change a document: PATCHes, bulk edits and notes. */
const writes = (counts: Record<string, number>) =>
  Object.entries(counts)
    .filter(([key]) => /^(PATCH|PUT) |bulk_edit|^POST .*notes/.test(key))
    .reduce((sum, [, n]) => sum + n, 0);

/** Kills per profile, documents added before each kill and while the service is down; small enough for `npm test`. */
export interface FloodPlan {
  kills: number;
  batch: number;
  whileDown: number;
}

export interface FloodCounts {
  profile: string;
  seed: number;
  runs: number;
  kills: number;
  documents: number;
  deliveries: number;
  refused: number;
  doubled: number;
  missed: number;
  notesDoubled: number;
  notificationsLost: number;
  twoKeys: number;
  doneWithoutTraces: number;
  details?: unknown;
  untraced?: string[];
}

/** The flood against one release profile: Paperless's own webhook (through a relay), kill -9 at seeded points. */
export async function floodWithKills(profile: SimProfileName, seed: number, plan: FloodPlan): Promise<FloodCounts> {
  const random = seeded(seed);
  const receiver = await startReceiver();
  const sim = await startSimulator({ profile, seedDocuments: false });
  const relay = await startRelay();
  const dirs = serviceDirs(sim, RULES, `notify_targets:\n  hook:\n    url: ${receiver.url}/hook\n`);
  sim.setWorkflowWebhook({
    url: `${relay.url}/api/webhook/dms`,
    headers: { Authorization: `Bearer ${API_TOKEN}` },
    echoDelayMs: 20,
    retryBaseMs: 20,
    retryJitter: false,
    workers: 2,
  });
  const originals = new Map<number, string>();
  const add = () => {
    const doc = sim.addDocument({ title: `Scan ${originals.size + 1}`, content: 'Rechnung' });
    originals.set(doc.id, doc.title);
  };
  let server: ChildServer | undefined;
  let runs = 0;
  try {
    for (let k = 0; k < plan.kills; k++) {
      server = await startLive(dirs, relay);
      runs++;
      const base = writes(sim.counts());
      // A point among the writes this batch makes (a title, a note each): from before the first to after the last.
      const at = base + random(plan.batch * 2 + 1);
      for (let i = 0; i < plan.batch; i++) add();
      const batch = [...originals.keys()].slice(-plan.batch);
      await until(
        () => writes(sim.counts()),
        (n) => n >= at || batch.every((id) => sim.store.getDocument(id)?.title.endsWith('+')),
        `write ${at} of the batch`,
      );
      await killLive(server, relay);
      // Deliveries for these are refused (502) and dropped by Paperless after its retries: catch-up must find them.
      for (let i = 0; i < plan.whileDown; i++) add();
    }
    server = await startLive(dirs, relay);
    runs++;
    const live = server;
    const ids = [...originals.keys()];
    // Settled: every document run, nothing waiting in the service or in Paperless's webhook queue, no intent pending.
    await until(
      async () => {
        await sim.webhooksIdle();
        return {
          written: ids.filter((id) => sim.store.getDocument(id)?.title.endsWith('+')).length,
          noted: ids.filter((id) => (sim.store.getDocument(id)?.notes.length ?? 0) > 0).length,
          waiting: await arrivalsWaiting(live.url),
          pending: pendingIntents(dirs.SVC_DATA_DIR),
          told: new Set(receiver.received.map((r) => /#(\d+)#/.exec(r.body)?.[1])).size,
        };
      },
      (s) => s.written === ids.length && s.noted === ids.length && s.waiting === 0 && s.pending === 0,
      'every document run and nothing waiting',
    );
    const untraced = [
      ...(await doneWithoutTraces(live.url, 'webhook')),
      ...(await doneWithoutTraces(live.url, 'catchup')),
    ];
    const keysOf = (id: number) =>
      new Set(receiver.received.filter((r) => r.body.includes(`#${id}#`)).map((r) => r.headers['idempotency-key']));
    return {
      profile,
      seed,
      runs,
      kills: plan.kills,
      documents: ids.length,
      deliveries: relay.accepted,
      refused: relay.refused,
      doubled: ids.filter((id) => sim.store.getDocument(id)?.title !== `${originals.get(id)}+`).length,
      missed: ids.filter((id) => sim.store.getDocument(id)?.title === originals.get(id)).length,
      notesDoubled: ids.filter((id) => (sim.store.getDocument(id)?.notes.length ?? 0) > 1).length,
      notificationsLost: ids.filter((id) => keysOf(id).size === 0).length,
      twoKeys: ids.filter((id) => keysOf(id).size > 1).length,
      details: await Promise.all(
        ids
          .filter((id) => sim.store.getDocument(id)?.title !== `${originals.get(id)}+`)
          .slice(0, 4)
          .map(async (id) => ({
            id,
            title: sim.store.getDocument(id)?.title,
            runs: (await tracesOf(live.url, `document=${id}&rule_id=plus`)).map(
              (t) => `${t.source}:${t.event_id}:${t.status}:${t.actions[0]?.status}:${t.at}`,
            ),
            history: sim.store.audit.entries
              .filter((e) => e.document === id)
              .map((e) => `${e.timestamp} actor ${e.actor} ${JSON.stringify(e.changes).slice(0, 120)}`),
          })),
      ),
      doneWithoutTraces: untraced.length,
      untraced,
    };
  } finally {
    await server?.kill();
    await relay.close();
    await sim.close();
    await receiver.close();
  }
}
