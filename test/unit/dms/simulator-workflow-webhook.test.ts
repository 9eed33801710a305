import '../../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import { createPaperlessClient } from '../../../server/dms/paperless-client.js';
import { startSimulator, type Simulator } from '../../../tools/paperless-sim/simulator.js';
import type { DmsClient } from '../../../server/dms/types.js';
import { PROJECT_ROOT } from '../../../server/project-paths.js';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

const examples = JSON.parse(
  fs.readFileSync(path.join(PROJECT_ROOT, 'test', 'fixtures', 'webhook', 'webhook-examples.json'), 'utf8'),
) as {
  examples: Array<{ name: string; parsed_body?: Record<string, unknown> }>;
};

describe('Paperless workflow webhook emulation', () => {
  let sim: Simulator;
  let dms: DmsClient;
  let receiver: http.Server;
  let receiverUrl: string;
  const received: Received[] = [];
  let answer = 200;

  before(async () => {
    sim = await startSimulator();
    dms = createPaperlessClient({ url: sim.url, token: sim.token });
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(answer).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/api/webhook/dms`;
  });
  afterEach(async () => {
    await sim.webhooksIdle();
    sim.setWorkflowWebhook(null);
    sim.resetCounts();
    received.length = 0;
    answer = 200;
  });
  after(async () => {
    await dms.close();
    await sim.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  const configure = (
    shape: 'json' | 'form' | 'raw' | 'json-string' | 'multipart' | 'empty',
    triggers: Array<'added' | 'updated'> = ['added', 'updated'],
  ) =>
    sim.setWorkflowWebhook({
      url: receiverUrl,
      shape,
      triggers,
      headers: { Authorization: 'Bearer svc-token' },
      paperlessUrl: 'http://paperless.lan:8000',
      retryBaseMs: 1,
    });

  test('a PATCH sends a JSON webhook shaped like example A, after the PATCH has answered', async () => {
    configure('json');
    await dms.updateDocument(10, { title: 'Telekom Rechnung März 2025' });
    await sim.webhooksIdle();
    assert.equal(received.length, 1);
    const [hook] = received;
    assert.equal(hook.headers.authorization, 'Bearer svc-token');
    assert.equal(hook.headers['content-type'], 'application/json');
    assert.equal(hook.headers['user-agent'], 'python-httpx/0.28.1');
    const example = examples.examples.find((e) => e.name.startsWith('A_'))!.parsed_body!;
    const body = JSON.parse(hook.body) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body), Object.keys(example));
    assert.equal(body.doc_id, '10');
    assert.equal(body.event, 'document_updated');
    assert.equal(body.doc_url, 'http://paperless.lan:8000/documents/10/');
    assert.equal(body.correspondent, 'Telekom Deutschland GmbH');
    assert.ok(
      Object.values(body).every((v) => typeof v === 'string'),
      'every value is a string',
    );
  });

  test('a no-op PATCH fires too; notes never do', async () => {
    configure('form');
    const doc = await dms.getDocument(2);
    await dms.updateDocument(2, { title: doc.title });
    await dms.addNote(2, 'kein Update-Ereignis');
    await sim.webhooksIdle();
    assert.equal(received.length, 1);
    assert.equal(received[0].body, 'doc_id=2&doc_url=http%3A%2F%2Fpaperless.lan%3A8000%2Fdocuments%2F2%2F');
    assert.equal(received[0].headers['content-type'], 'application/x-www-form-urlencoded');
  });

  test('a bulk edit fires once per affected document', async () => {
    configure('json-string');
    await dms.bulkEdit([1, 2, 3], 'modify_tags', { add_tags: [7], remove_tags: [] });
    await sim.webhooksIdle();
    assert.equal(received.length, 3);
    const ids = received
      .map((r) => JSON.parse(JSON.parse(r.body) as string) as { doc_id: number })
      .map((b) => b.doc_id);
    assert.deepEqual(ids.sort(), [1, 2, 3]);
  });

  test('echoes come late like Celery tasks: queued, sent one at a time after the delay, per document after a bulk edit, even for a PATCH that changes nothing', async () => {
    sim.setWorkflowWebhook({ url: receiverUrl, shape: 'json', triggers: ['updated'], echoDelayMs: 300 });
    const title = (await dms.getDocument(2)).title;
    await dms.updateDocument(2, { title }); // changes nothing, still fires
    await dms.bulkEdit([3, 4], 'set_correspondent', { correspondent: 1 });
    assert.equal(sim.webhookStats().queued, 3, 'all three are queued at once');
    assert.equal(received.length, 0, 'none is sent before the delay');
    await sim.webhooksIdle();
    assert.deepEqual(
      received.map((r) => (JSON.parse(r.body) as { doc_id: string }).doc_id),
      ['2', '3', '4'],
      'in order, one per document',
    );
  });

  test('addDocument fires "added" only where the trigger is configured', async () => {
    configure('raw', ['added']);
    const doc = sim.addDocument({ title: 'Scan "neu"', original_file_name: 'Scan_neu.pdf' });
    await dms.updateDocument(doc.id, { title: 'x' });
    await sim.webhooksIdle();
    assert.equal(received.length, 1);
    assert.deepEqual(JSON.parse(received[0].body), {
      event: 'document_added',
      doc_id: doc.id,
      doc_url: `http://paperless.lan:8000/documents/${doc.id}/`,
      title: 'Scan "neu"',
      original_filename: 'Scan_neu',
    });
    assert.equal(received[0].headers['content-type'], undefined, 'raw bodies carry no Content-Type of their own');
  });

  test('multipart and empty shapes', async () => {
    configure('multipart');
    await dms.updateDocument(1, { title: 'Stromrechnung Januar 2025' });
    await sim.webhooksIdle();
    assert.match(String(received[0].headers['content-type']), /^multipart\/form-data; boundary=[0-9a-f]{32}$/);
    assert.match(received[0].body, /name="doc_id"\r\n\r\n1\r\n/);
    received.length = 0;
    configure('empty');
    await dms.updateDocument(1, { title: 'Stromrechnung Januar 2025' });
    await sim.webhooksIdle();
    assert.equal(received[0].body, '');
  });

  test('a non-2xx answer is retried up to 3 times, then given up', async () => {
    configure('json');
    answer = 500;
    await dms.updateDocument(3, { title: 'Kfz-Versicherung Police 2025' });
    await sim.webhooksIdle();
    assert.equal(received.length, 4);
    assert.equal(new Set(received.map((r) => r.body)).size, 1, 'the same payload each time');
    const { retryWaitsMs, ...counts } = sim.webhookStats();
    assert.deepEqual(counts, { queued: 1, attempts: 4, delivered: 0, failed: 1 });
    assert.equal(retryWaitsMs.length, 3);
    retryWaitsMs.forEach((wait, n) =>
      assert.ok(Number.isInteger(wait) && wait >= 0 && wait <= 2 ** n, `full jitter: 0..${2 ** n} units, got ${wait}`),
    );
  });

  test('retries wait 1, 2, 4 backoff units whatever Retry-After says, then the delivery is dropped for good', async () => {
    const retryAfter = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(503, { 'retry-after': '3600' }).end());
    });
    await new Promise<void>((resolve) => retryAfter.listen(0, '127.0.0.1', resolve));
    sim.setWorkflowWebhook({
      url: `http://127.0.0.1:${(retryAfter.address() as AddressInfo).port}/`,
      shape: 'json',
      retryBaseMs: 2,
      retryJitter: false,
      echoDelayMs: 0,
    });
    await dms.updateDocument(3, { title: 'Kfz-Versicherung Police 2025' });
    await sim.webhooksIdle();
    await new Promise<void>((resolve) => retryAfter.close(() => resolve()));
    const stats = sim.webhookStats();
    assert.deepEqual(stats.retryWaitsMs, [2, 4, 8], 'Celery retry_backoff: 1, 2, 4 units; Retry-After: 3600 ignored');
    assert.deepEqual([stats.attempts, stats.delivered, stats.failed], [4, 0, 1], 'then dropped, nothing waits');
  });

  test('a bulk edit’s deliveries come from its task: after the answer, one per document, newest created first', async () => {
    sim.setWorkflowWebhook({ url: receiverUrl, shape: 'json', triggers: ['updated'], echoDelayMs: 0 });
    sim.setTasks({ hold: true });
    try {
      await dms.bulkEdit([10, 1, 3], 'modify_tags', { add_tags: [7], remove_tags: [] });
      assert.deepEqual(sim.pendingTasks(), ['bulk_update_documents']);
      assert.equal(sim.webhookStats().queued, 0, 'nothing fires before the task runs');
      assert.equal(sim.releaseTasks(), 1);
      await sim.webhooksIdle();
      const created = (id: number) => sim.store.getDocument(id)!.created;
      const expected = [10, 1, 3].sort((a, b) => (created(a) < created(b) ? 1 : created(a) > created(b) ? -1 : b - a));
      assert.deepEqual(
        received.map((r) => Number((JSON.parse(r.body) as { doc_id: string }).doc_id)),
        expected,
        'Document.Meta.ordering = ("-created",)',
      );
    } finally {
      sim.setTasks(null);
    }
  });
});
