import fs from 'node:fs';
import path from 'node:path';
import type { Simulator } from '../../../tools/paperless-sim/simulator.js';
import type { Trace } from '../../../server/engine/model.js';
import { API_TOKEN, call, startTestServer, tempDir, type TestServer } from '../../helpers/test-server.js';

/** The real service on the simulator with this token (a superuser's or a limited user's) and one rules file. */
export async function serverWithRules(sim: Simulator, token: string, rulesYaml: string): Promise<TestServer> {
  const rulesDir = tempDir('dms-rules-rules-');
  fs.writeFileSync(path.join(rulesDir, 'rules.yml'), rulesYaml);
  return startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: token }, { rulesDir });
}

/** `POST /api/run` on one document, writing (not a dry run). */
export function runReal(server: TestServer, document: number) {
  return call<{ traces: Trace[]; error?: string }>(server.url, `/api/run?document=${document}&dry_run=false`, {
    method: 'POST',
    token: API_TOKEN,
  });
}

/** Every trace the service recorded for a document, newest first. */
export async function tracesOf(server: TestServer, document: number): Promise<Trace[]> {
  return (await call<{ traces: Trace[] }>(server.url, `/api/traces?document=${document}`, { token: API_TOKEN })).body
    .traces;
}
