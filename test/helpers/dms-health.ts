import assert from 'node:assert/strict';
import { API_TOKEN, call } from './test-server.js';

/**
 * What health says the dms serves at once, once it says a figure `until` accepts: the start-up probes may still be
 * under way when the service listens (they go last, within the start-up wait), and later ones run in the background.
 */
export async function servesAtOnce(
  serverUrl: string,
  until: (served: number) => boolean = () => true,
): Promise<number> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const health = await call<{ dms: { serves_at_once?: number | null } }>(serverUrl, '/api/health', {
      token: API_TOKEN,
    });
    const served = health.body.dms.serves_at_once;
    if (typeof served === 'number' && until(served)) return served;
    assert.ok(Date.now() < deadline, `health never said the expected figure (last: ${served})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
