import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ArrivalStatus } from '../../server/runs/arrival/arrival-status.js';
import { startSimulator } from '../../tools/paperless-sim/simulator.js';
import { API_TOKEN, call, startTestServer } from '../helpers/test-server.js';

async function attributionOnceDecided(url: string): Promise<ArrivalStatus['attribution']> {
  for (let i = 0; ; i++) {
    const { attribution } = (await call<{ arrival: ArrivalStatus }>(url, '/api/health', { token: API_TOKEN })).body
      .arrival;
    if (!attribution.note.startsWith('Not known yet') || i >= 2000) return attribution;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('attribution with a token whose user lacks a permission', () => {
  it('health names the permission that would let the service find its own user, instead of "not known yet"', async () => {
    const sim = await startSimulator();
    // carla is not a superuser: Paperless's UiSettingsView wants documents.view_uisettings from her.
    const server = await startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.tokenFor('carla') });
    try {
      const attribution = await attributionOnceDecided(server.url);
      assert.equal(attribution.mode, 'state');
      assert.match(attribution.note, /lacks the permission view_uisettings/);
    } finally {
      await server.close();
      await sim.close();
    }
  });
});
