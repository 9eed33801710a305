import { API_TOKEN, call, type TestServer } from './test-server.js';

// How tests wait for arrivals (webhook deliveries, catch-up) without reaching into the service: health's
// `arrival.waiting` over HTTP, and one seam for the single thing no request can do.

/** Deliveries waiting or running plus what a catch-up pass has left, as health reports it to the API token. */
export async function arrivalsWaiting(url: string): Promise<number> {
  const res = await call<{ arrival?: { waiting: number } }>(url, '/api/health', { token: API_TOKEN });
  if (res.status !== 200 || !res.body.arrival) throw new Error(`health without arrival: ${JSON.stringify(res.body)}`);
  return res.body.arrival.waiting;
}

/** Resolves once health says no arrival waits or runs (polled; no fixed wait). */
export async function arrivalsSettled(url: string): Promise<void> {
  while ((await arrivalsWaiting(url)) > 0) await new Promise((resolve) => setTimeout(resolve, 10));
}

/**
 * The test seam (CONTRIBUTING.md): one catch-up pass now, as the service's own timer starts one. No request
 * starts a pass, and a test that checks what a pass does needs it at a known moment.
 */
export function catchUpNow(
  server: Pick<TestServer, 'services'>,
): ReturnType<TestServer['services']['catchUp']['runNow']> {
  return server.services.catchUp.runNow('test');
}
