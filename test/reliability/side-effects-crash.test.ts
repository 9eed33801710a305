import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { startSimulator } from '../../tools/paperless-sim/simulator.js';
import type { DmsNote } from '../../server/dms/types.js';
import type { EventRecord } from '../../server/history/event-types.js';
import { startChildServer } from '../helpers/child-server.js';
import { API_TOKEN, call, tempDir } from '../helpers/test-server.js';

const RULES = `
rules:
  - id: checked
    on: [updated]
    when: { title: { contains: Vertrag } }
    actions:
      - add_note: "Checked by dms-rules"
      - notify: { to: hook, title: "Checked {{ doc.id }}", message: "Document {{ doc.id }} got a note" }
`;

interface Received {
  key: string | undefined;
  answered: boolean;
}

async function until(what: string, done: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    if (await done()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.fail(`still waiting for: ${what}`);
}

test('kill -9 after the note was written and while the notification is being sent: after the restart, one note and one notification', async () => {
  // The target holds the first request open: the service is killed with the message in flight.
  const received: Received[] = [];
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const first = received.length === 0;
      received.push({ key: req.headers['idempotency-key'] as string | undefined, answered: !first });
      if (!first) res.end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const sim = await startSimulator();
  const doc = sim.addDocument({ title: 'Mietvertrag Wohnung', content: 'Vertrag zwischen', tags: [] }).id;
  const notes = async (): Promise<string[]> => {
    const res = await fetch(`${sim.url}/api/documents/${doc}/notes/`, {
      headers: { Authorization: `Token ${sim.token}` },
    });
    return ((await res.json()) as DmsNote[]).map((n) => n.note);
  };

  const dirs = { SVC_DATA_DIR: tempDir(), SVC_RULES_DIR: tempDir(), SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token };
  fs.writeFileSync(path.join(dirs.SVC_RULES_DIR, 'checked.yml'), RULES);
  fs.writeFileSync(
    path.join(dirs.SVC_DATA_DIR, 'config.yml'),
    `notify_targets:\n  hook:\n    url: http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook\n`,
  );
  let server = await startChildServer(dirs);
  try {
    const delivered = await call<{ event_id: number }>(server.url, '/api/webhook/dms', {
      method: 'POST',
      token: API_TOKEN,
      body: { event: 'document_updated', doc_id: String(doc) },
    });
    assert.equal(delivered.status, 202, JSON.stringify(delivered.body));
    await until('the notification reaches the target', () => received.length === 1);
    await server.kill('SIGKILL');
    assert.deepEqual(await notes(), ['Checked by dms-rules'], 'the note was written before the kill');

    server = await startChildServer(dirs);
    await until('the notification is sent again and taken', () => received.some((r) => r.answered));
    // The delivery the kill cut short runs again after the restart: it must add and send nothing more.
    await until('the re-queued delivery has run', async () => {
      const event = await call<EventRecord>(server.url, `/api/events/${delivered.body.event_id}`, { token: API_TOKEN });
      return event.status === 404 || ['done', 'failed'].includes(event.body.status);
    });
    const again = await call<{ event_id: number }>(server.url, '/api/webhook/dms', {
      method: 'POST',
      token: API_TOKEN,
      body: { event: 'document_updated', doc_id: String(doc) },
    });
    await until('a duplicate delivery has run', async () => {
      const event = await call<EventRecord>(server.url, `/api/events/${again.body.event_id}`, { token: API_TOKEN });
      return event.status === 404 || ['done', 'failed'].includes(event.body.status);
    });

    assert.deepEqual(await notes(), ['Checked by dms-rules'], 'exactly one note');
    assert.equal(
      received.filter((r) => r.answered).length,
      1,
      `exactly one notification taken: ${JSON.stringify(received)}`,
    );
    assert.equal(received.length, 2, 'the one cut short by the kill, and its resend');
    assert.match(String(received[0].key), new RegExp(`^dms-rules-${doc}-`));
    assert.equal(
      received[1].key,
      received[0].key,
      'the resend carries the same Idempotency-Key, so a receiver can drop a repeat',
    );
    assert.match(server.output(), /recorded before the last stop are not known to be sent; sending them now/);
  } finally {
    await server.kill();
    await sim.close();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  }
});
