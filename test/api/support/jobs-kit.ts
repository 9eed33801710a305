import fs from 'node:fs';
import path from 'node:path';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../../tools/paperless-sim/simulator.js';
import type { Config } from '../../../server/config.js';
import type { EventRecord } from '../../../server/history/event-types.js';
import { API_TOKEN, call, startTestServer, tempDir, type TestServer } from '../../helpers/test-server.js';
import { arrivalsSettled, arrivalsWaiting } from '../../helpers/arrivals.js';

export interface Rig {
  sim: Simulator;
  server: TestServer;
  close(): Promise<void>;
}

/** The simulator plus the real server pointed at it, with one rules file written before start. */
export async function startRig(
  rulesYaml: string,
  env: Record<string, string> = {},
  simOptions: SimulatorOptions = {},
  overrides: Partial<Config> = {},
): Promise<Rig> {
  const sim = await startSimulator(simOptions);
  const rulesDir = tempDir('dms-rules-jobs-rules-');
  fs.writeFileSync(path.join(rulesDir, 'test-rules.yml'), rulesYaml);
  const server = await startTestServer(
    { SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token, ...env },
    { rulesDir, ...overrides },
  );
  return {
    sim,
    server,
    async close() {
      await server.close();
      await sim.close();
    },
  };
}

export async function startJob(url: string, query: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return call(url, `/api/run?${query}`, { method: 'POST', token: API_TOKEN });
}

export async function getEvent(url: string, id: number): Promise<EventRecord> {
  const res = await call<EventRecord>(url, `/api/events/${id}`, { token: API_TOKEN });
  if (res.status !== 200) throw new Error(`GET /api/events/${id}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const FINISHED = ['done', 'failed', 'cancelled', 'interrupted'];

/** Polls the event until `until` holds (default: it has ended); gives up after `limitMs` with the last record. */
export async function waitForEvent(
  url: string,
  id: number,
  until: (e: EventRecord) => boolean = (e) => FINISHED.includes(e.status),
  limitMs = 30_000,
): Promise<EventRecord> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const event = await getEvent(url, id);
    if (until(event)) return event;
    if (Date.now() > deadline)
      throw new Error(`event ${id} never reached the expected state: ${JSON.stringify(event)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** `PATCH /api/documents/{id}/` straight to the simulator, as a person editing in Paperless would. */
export async function editInDms(sim: Simulator, id: number, patch: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${sim.url}/api/documents/${id}/`, {
    method: 'PATCH',
    // The web UI of the release asks for its own API version; 9 is one every supported release (2.16–3.0) accepts.
    headers: {
      authorization: `Token ${sim.token}`,
      'content-type': 'application/json',
      accept: 'application/json; version=9',
    },
    body: JSON.stringify(patch),
  });
  if (!res.ok) throw new Error(`PATCH ${id}: ${res.status} ${await res.text()}`);
}

export const bulkEdits = (sim: Simulator) => sim.counts()['POST /api/documents/bulk_edit/'] ?? 0;
export const patches = (sim: Simulator) => sim.counts()['PATCH /api/documents/{id}/'] ?? 0;

/** A Paperless webhook delivery for the document, as its workflow posts it (`updated` unless told otherwise). */
export const deliver = (url: string, doc: number, event: 'document_added' | 'document_updated' = 'document_updated') =>
  call<{ event_id: number; duplicate: boolean }>(url, '/api/webhook/dms', {
    token: API_TOKEN,
    body: { event, doc_id: String(doc) },
  });

/**
 * Waits until the simulator has no task (a bulk edit's "Document Updated") or webhook waiting or in flight and the
 * service's queue is empty, twice in a row: nothing is left that could start more work. For rigs that hold
 * neither tasks nor webhooks at the time (a held one never ends).
 */
export async function settle(rig: Rig): Promise<void> {
  for (let quiet = 0; quiet < 2;) {
    await rig.sim.webhooksIdle();
    await arrivalsSettled(rig.server.url);
    const webhooks = rig.sim.webhookStats();
    const busy =
      rig.sim.pendingTasks().length > 0 ||
      webhooks.queued > webhooks.delivered + webhooks.failed ||
      (await arrivalsWaiting(rig.server.url)) > 0;
    quiet = busy ? 0 : quiet + 1;
  }
}

/** Paperless's "Document Updated" workflow with a webhook action, pointed at the service, on every update. */
export function emulateWorkflow(
  rig: Rig,
  timing: { echoDelayMs?: number; hold?: boolean } = { echoDelayMs: 50 },
): void {
  rig.sim.setWorkflowWebhook({
    url: `${rig.server.url}/api/webhook/dms`,
    headers: { Authorization: `Bearer ${API_TOKEN}` },
    triggers: ['updated'],
    shape: 'json',
    retryBaseMs: 10,
    ...timing,
  });
}
