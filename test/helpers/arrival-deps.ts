import path from 'node:path';
import type { DmsClient } from '../../server/dms/types.js';
import type { Logger } from '../../server/log.js';
import { openEchoLedger } from '../../server/runs/echo/echo-ledger.js';
import { createDocumentLane, type DocumentLane } from '../../server/runs/lane/document-lane.js';
import type { Attribution } from '../../server/runs/echo/attribution.js';
import { createFrontDoor, type FrontDoorDeps } from '../../server/runs/arrival/arrive.js';
import type { AutomaticRunner } from '../../server/runs/arrival/automatic-runner.js';
import { failedRunRetry, type FailedRunRetry } from '../../server/runs/arrival/failed-run-retry.js';

/**
 * What the arrival paths (webhook, catch-up) share, for a unit test of one of them: a fresh echo ledger in `dir`,
 * the per-document lane, attribution by document state alone, as without an audit log (a state the ledger
 * knows as the service's own write is its echo), and the front door over them with the test's runner (and write
 * journal, if given).
 */
export function arrivalDeps(
  dir: string,
  dms: Pick<DmsClient, 'getDocuments'>,
  logger: Logger,
  runner: AutomaticRunner,
  retry: FailedRunRetry = failedRunRetry(),
  journal?: (lane: DocumentLane) => FrontDoorDeps['journal'],
) {
  const attribution: Attribution = {
    onlyOwnChanges: () => Promise.resolve(true),
    status: () => ({ mode: 'state', user: null, note: '' }),
  };
  const echoes = openEchoLedger({
    file: path.join(dir, 'ledger.json'),
    dms,
    logger,
    loopMaxWrites: 5,
    loopWindowMs: 60_000,
  });
  const lane = createDocumentLane();
  const arrive = createFrontDoor({
    lane,
    barrier: echoes,
    states: echoes,
    failures: echoes,
    attribution,
    runner,
    retry,
    ...(journal ? { journal: journal(lane) } : {}),
  });
  return { echoes, lane, attribution, arrive };
}
