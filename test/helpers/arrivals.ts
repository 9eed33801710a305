import type { ArrivalStatus } from '../../server/runs/arrival/arrival-status.js';
import type { ActiveFault } from '../../tools/paperless-sim/faults.js';
import { API_TOKEN, call, type TestServer } from './test-server.js';

// How tests wait for arrivals (webhook deliveries, catch-up) without reaching into the service: health's
// `arrival.waiting` over HTTP, and one seam for the single thing no request can do.

/** Health's `arrival` part, as the API token sees it. */
export async function arrivalHealth(url: string): Promise<ArrivalStatus> {
  const res = await call<{ arrival?: ArrivalStatus }>(url, '/api/health', { token: API_TOKEN });
  if (res.status !== 200 || !res.body.arrival) throw new Error(`health without arrival: ${JSON.stringify(res.body)}`);
  return res.body.arrival;
}

/** Deliveries waiting or running plus what a catch-up pass has left, as health reports it to the API token. */
export async function arrivalsWaiting(url: string): Promise<number> {
  return (await arrivalHealth(url)).waiting;
}

/** How many deliveries the service has told apart as the echo of its own write so far (health's count). */
export async function echoesSkipped(url: string): Promise<number> {
  return (await arrivalHealth(url)).echoes_skipped;
}

/** Resolves once health says no arrival waits or runs (polled; no fixed wait). */
export async function arrivalsSettled(url: string): Promise<void> {
  while ((await arrivalsWaiting(url)) > 0) await pause(10);
}

/**
 * Resolves once the simulator's `hold` fault has caught `count` requests: so many runs have reached their read
 * and hold a run slot. The simulator is the test's own dms, so this asks nothing of the service.
 */
export async function heldAtDms(fault: Pick<ActiveFault, 'hits'>, count: number): Promise<void> {
  while (fault.hits < count) await pause(5);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The test seam (CONTRIBUTING.md): one catch-up pass now, as the service's own timer starts one. No request
 * starts a pass, and a test that checks what a pass does needs it at a known moment.
 */
export function catchUpNow(
  server: Pick<TestServer, 'services'>,
): ReturnType<TestServer['services']['catchUp']['runNow']> {
  return server.services.catchUp.runNow('test');
}
