import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DmsClient, DmsDocument } from '../../../../server/dms/types.js';
import { openEventStore } from '../../../../server/history/event-store.js';
import { createMemoryLogger } from '../../../../server/log.js';
import type { AutomaticRunner } from '../../../../server/runs/arrival/automatic-runner.js';
import { failedRunRetry } from '../../../../server/runs/arrival/failed-run-retry.js';
import { createWebhookService, DEFAULT_WEBHOOK_OPTIONS } from '../../../../server/runs/webhook/webhook-service.js';
import { arrivalDeps } from '../../../helpers/arrival-deps.js';
import { dmsDocument } from '../../../helpers/dms-document.js';
import { tempDir } from '../../../helpers/temp-dir.js';

describe('a delivery whose document the journal reconciled', () => {
  it('runs on the document read again, not on the copy its batch read before', async () => {
    const dir = tempDir();
    const logger = createMemoryLogger();
    const events = await openEventStore(dir, logger);
    // The batch's list read, then the write the journal finished on document 2 inside its hold: a read after it
    // shows that write.
    const dms = {
      getDocuments: async (ids: number[]) => ids.map((id) => dmsDocument(id, { title: 'read by the batch' })),
      getDocument: async (id: number) => dmsDocument(id, { title: 'read after the journal' }),
    } as unknown as DmsClient;
    let release!: () => void;
    const first = new Promise<void>((resolve) => (release = resolve));
    const ran: string[] = [];
    const runner: AutomaticRunner = {
      run: async (doc: DmsDocument) => {
        if (doc.id === 1) await first; // holds the one run slot while 2 and 3 wait and are read together
        ran.push(`${doc.id}: ${doc.title}`);
        return { matched: 1, changed: 0, errors: 0, failure: null };
      },
      fail: () => undefined,
    };
    const { lane, arrive } = arrivalDeps(dir, dms, logger, runner, failedRunRetry(), () => ({
      ready: Promise.resolve(),
      reconcile: async (doc) => doc === 2,
      completed: () => null,
      ensureTraces: () => undefined,
      recognise: () => undefined,
    }));
    const webhook = createWebhookService(
      { dms, events, lane, arrive, logger, dryRun: () => true },
      { ...DEFAULT_WEBHOOK_OPTIONS, concurrency: 1 },
    );
    try {
      const ids = [];
      for (const document of [1, 2, 3]) ids.push((await webhook.receive({ document, trigger: 'updated' })).event_id);
      release();
      while (!ids.every((id) => events.get(id)?.status === 'done')) await new Promise((r) => setImmediate(r));
      assert.deepEqual(ran.sort(), ['1: read after the journal', '2: read after the journal', '3: read by the batch']);
    } finally {
      await webhook.stop();
      await events.close();
    }
  });
});
