import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';
import type { Trace } from '../../../server/engine/model.js';
import type { EventRecord } from '../../../server/history/event-types.js';
import { startSimulator, type Simulator } from '../../../tools/paperless-sim/simulator.js';
import { startChildServer, type ChildServer } from '../../helpers/child-server.js';
import { API_TOKEN, call, tempDir } from '../../helpers/test-server.js';

// What the chaos scenarios and kill tests share: a service that is killed and started again under one address,
// seeded randomness, waits on conditions, deliveries and their events, and the counts a scenario reports (runs,
// kills, deliveries; doubled, missed, lost).

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `read` until `done` holds; the limit only ends a hung test, it decides nothing (a loaded machine waits). */
export async function until<T>(read: () => Promise<T> | T, done: (value: T) => boolean, what: string): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < 4800; i++) {
    last = await read();
    if (done(last)) return last;
    await sleep(25);
  }
  throw new Error(`gave up waiting: ${what} (last: ${JSON.stringify(last)?.slice(0, 400)})`);
}

/** A seeded generator (mulberry32): the same seed picks the same kill points on every machine. */
export function seeded(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * below);
  };
}

/**
 * One address for the service across its restarts, as Paperless's workflow knows it: requests go to the live
 * child; while none lives (killed, starting) the answer is 502, which Paperless's `send_webhook` retries and then drops.
 */
export interface Relay {
  url: string;
  target: string | null;
  /** Deliveries the relay answered with the service's 202 / could not hand on. */
  accepted: number;
  refused: number;
  close(): Promise<void>;
}

export async function startRelay(): Promise<Relay> {
  const relay: Relay = { url: '', target: null, accepted: 0, refused: 0, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const refuse = () => {
        relay.refused++;
        if (!res.headersSent) res.writeHead(502).end('service down');
      };
      if (!relay.target) return refuse();
      // Only what the service reads: fetch refuses hop-by-hop headers such as `connection`.
      const headers: Record<string, string> = {};
      for (const name of ['authorization', 'content-type', 'user-agent'])
        if (typeof req.headers[name] === 'string') headers[name] = req.headers[name];
      fetch(`${relay.target}${req.url ?? '/'}`, {
        method: req.method,
        headers,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      })
        .then(async (answer) => {
          const body = Buffer.from(await answer.arrayBuffer());
          if (answer.status === 202) relay.accepted++;
          res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
          res.end(body);
        })
        .catch(refuse);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  relay.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  relay.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return relay;
}

/** The service's data and rules dirs against `sim`, with `rules` as its one rules file and optional config.yml. */
export function serviceDirs(sim: Simulator, rules: string, configYml = ''): Record<string, string> {
  const dirs = { SVC_DATA_DIR: tempDir(), SVC_RULES_DIR: tempDir(), SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token };
  fs.writeFileSync(path.join(dirs.SVC_RULES_DIR, 'chaos.yml'), rules);
  if (configYml) fs.writeFileSync(path.join(dirs.SVC_DATA_DIR, 'config.yml'), configYml);
  return dirs;
}

/** Starts the child service, points the relay at it and waits until its catch-up cursor is set. */
export async function startLive(dirs: Record<string, string>, relay: Relay | null): Promise<ChildServer> {
  const server = await startChildServer(dirs);
  if (relay) relay.target = server.url;
  await until(
    async () =>
      (await call<{ arrival?: { cursor: string | null } }>(server.url, '/api/health', { token: API_TOKEN })).body
        .arrival?.cursor ?? null,
    (cursor) => cursor !== null,
    'the catch-up cursor',
  );
  return server;
}

/** Kill -9; the relay refuses deliveries until the next start. */
export async function killLive(server: ChildServer, relay: Relay | null): Promise<void> {
  if (relay) relay.target = null;
  await server.kill('SIGKILL');
}

/**
 * One service against one simulator, killed and started again by a `describe`'s tests: registers the describe's
 * set-up (the simulator, the service's dirs with `rules`) and its clean-up (the live service, the simulator).
 */
export interface KillScenario {
  readonly sim: Simulator;
  readonly dirs: Record<string, string>;
  /** Starts the service (startLive, no relay) and answers it; it is the one `kill` and the clean-up end. */
  start(): Promise<ChildServer>;
  /** Kill -9 of the live service. */
  kill(): Promise<void>;
}

export function killScenario(rules: string): KillScenario {
  let sim: Simulator | undefined;
  let dirs: Record<string, string> | undefined;
  let live: ChildServer | undefined;
  before(async () => {
    sim = await startSimulator();
    dirs = serviceDirs(sim, rules);
  });
  after(async () => {
    await live?.kill();
    await sim?.close();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the scenario is set up in the describe’s before hook');
    return value;
  };
  return {
    get sim() {
      return ready(sim);
    },
    get dirs() {
      return ready(dirs);
    },
    start: async () => (live = await startLive(ready(dirs), null)),
    kill: () => killLive(ready(live), null),
  };
}

/** A Paperless webhook delivery for the document, accepted (202); its event id. */
export async function deliver(url: string, doc: number, event = 'document_updated'): Promise<number> {
  const res = await call<{ event_id: number }>(url, '/api/webhook/dms', {
    token: API_TOKEN,
    body: { event, doc_id: String(doc) },
  });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return res.body.event_id;
}

export const eventOf = async (url: string, id: number): Promise<EventRecord> =>
  (await call<EventRecord>(url, `/api/events/${id}`, { token: API_TOKEN })).body;

/** The event once it ended, done or failed. */
export const ended = (url: string, id: number, what = `event ${id} to end`): Promise<EventRecord> =>
  until(
    () => eventOf(url, id),
    (e) => e.status === 'done' || e.status === 'failed',
    what,
  );

export const eventsOf = async (url: string, kind: string): Promise<EventRecord[]> =>
  (await call<{ events: EventRecord[] }>(url, `/api/events?kind=${kind}&limit=1000`, { token: API_TOKEN })).body.events;

export const tracesOf = async (url: string, query: string): Promise<Trace[]> =>
  (await call<{ traces: Trace[] }>(url, `/api/traces?${query}&limit=1000`, { token: API_TOKEN })).body.traces;

/** The `done` events of `kind` whose run wrote something and have no trace (should be none), as `id kind: summary`. */
export async function doneWithoutTraces(url: string, kind: string): Promise<string[]> {
  const missing: string[] = [];
  for (const event of await eventsOf(url, kind)) {
    if (event.status !== 'done' || event.changed === 0) continue;
    if ((await tracesOf(url, `event_id=${event.event_id}`)).length === 0)
      missing.push(`${event.event_id} ${kind} doc ${event.document}: ${event.error ?? event.report?.summary ?? ''}`);
  }
  return missing;
}

/** Intents (notes, notifications) still pending in the data dir's store. */
export function pendingIntents(dataDir: string): number {
  const file = path.join(dataDir, 'side-effects.json');
  if (!fs.existsSync(file)) return 0;
  return (fs.readFileSync(file, 'utf8').match(/"status":\s*"pending"/g) ?? []).length;
}
