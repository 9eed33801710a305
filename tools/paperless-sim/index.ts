import type { DmsDocument } from '../../server/dms/types.js';
import { generateDocuments } from './generator.js';
import { documentToWire } from '../../server/dms/demo/serialize.js';
import { createStore } from '../../server/dms/demo/store.js';

export { startSimulator, type Simulator, type SimulatorOptions } from './simulator.js';
export { generateDocuments } from './generator.js';
export type { FaultSpec } from './faults.js';
export type { WorkflowWebhookConfig, WebhookShape } from './workflow-webhook.js';
export type { ObjectGrants, SimAccount, SimGroup } from '../../server/dms/demo/sim-types.js';
export type { LimitedUserOptions } from './limited-user.js';
export type { SimAccountInput } from '../../server/dms/demo/seed-accounts.js';

/** `generateDocuments` in the exact wire shape `GET /api/documents/{id}/` returns (for engine tests and benchmarks). */
export function generateDmsDocuments(n: number, seed = 1, startId = 1000): DmsDocument[] {
  const store = createStore({ seedDocuments: false });
  return generateDocuments(n, seed, startId).map((doc) => documentToWire(store, doc) as unknown as DmsDocument);
}
export {
  generateLabelledArchive,
  loadLabelledArchive,
  HIDDEN_RULES,
  type LabelledArchive,
} from './labelled-archive.js';
