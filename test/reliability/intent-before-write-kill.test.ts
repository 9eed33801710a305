import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { EventRecord } from '../../server/history/event-types.js';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import { startReceiver } from '../api/support/notify-kit.js';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { API_TOKEN, call, tempDir } from '../helpers/test-server.js';

const RULES = `
rules:
  - id: checked
    on: [updated]
    when: { title: { contains: "Vertrag F7" } }
    actions:
      - set_title: "Vertrag F7 geprüft"
      - notify: { to: hook, title: "Checked {{ doc.id }}", message: "{{ doc.title }}" }
  - id: logged
    on: [updated]
    when: { title: { contains: "Akte F7" } }
    actions:
      - set_title: "Akte F7 gelesen"
      - notify: { to: hook, when: always, title: "Logged {{ doc.id }}", message: "{{ doc.title }}" }
`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(read: () => Promise<T> | T, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = await read();
    if (done(value)) return value;
    await sleep(50);
  }
  throw new Error(`gave up waiting: ${what}`);
}

const event = async (server: ChildServer, id: number) =>
  (await call<EventRecord>(server.url, `/api/events/${id}`, { token: API_TOKEN })).body;

// The kill lands after Paperless applied the field write and before its answer: the run never got to the step
// after its writes. The notification it sets off was recorded before the first write, so the restart sends it once.
describe('a kill between the field writes and the rest of the run', () => {
  let sim: Simulator;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let dirs: Record<string, string>;
  let server: ChildServer | undefined;

  before(async () => {
    receiver = await startReceiver();
    sim = await startSimulator();
    dirs = { SVC_DATA_DIR: tempDir(), SVC_RULES_DIR: tempDir(), SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token };
    fs.writeFileSync(path.join(dirs.SVC_RULES_DIR, 'checked.yml'), RULES);
    fs.writeFileSync(
      path.join(dirs.SVC_DATA_DIR, 'config.yml'),
      `notify_targets:\n  hook:\n    url: ${receiver.url}/hook\n`,
    );
  });
  after(async () => {
    await server?.kill();
    await sim.close();
    await receiver.close();
  });

  test('the on_change notification is neither lost nor sent twice', async () => {
    server = await startChildServer(dirs);
    const doc = sim.addDocument({ title: 'Vertrag F7', content: 'Mietvertrag' }).id;
    const hold = sim.faults.inject({ route: 'PATCH /api/documents/{id}/', kind: 'hold', after: true, times: 1 });
    const accepted = await call<{ event_id: number }>(server.url, '/api/webhook/dms', {
      token: API_TOKEN,
      body: { event: 'document_updated', doc_id: String(doc) },
    });
    assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
    await until(
      () => sim.store.getDocument(doc)?.title,
      (title) => title === 'Vertrag F7 geprüft',
      'the dms to apply the write',
    );
    await server.kill('SIGKILL');
    sim.faults.release(hold.id);
    assert.equal(receiver.received.length, 0, 'nothing was sent before the kill');

    server = await startChildServer(dirs);
    await until(
      () => event(server!, accepted.body.event_id),
      (e) => e.status === 'done' || e.status === 'failed',
      'the delivery the kill cut short to end after the restart',
    );
    await until(
      () => receiver.received.length,
      (n) => n > 0,
      'the notification recorded before the write to be sent',
    );
    // Everything the restart had to do is done: the delivery ended and no intent is pending any more.
    await until(
      () => fs.readFileSync(path.join(dirs.SVC_DATA_DIR, 'side-effects.json'), 'utf8'),
      (intents) => !/"status":\s*"pending"/.test(intents),
      'no note or notification pending',
    );
    assert.equal(receiver.received.length, 1, 'one notification');
    assert.equal(sim.store.getDocument(doc)?.title, 'Vertrag F7 geprüft');
  });

  test('an always notification is neither lost nor sent twice', async () => {
    server ??= await startChildServer(dirs);
    const logged = () => receiver.received.filter((r) => r.body.includes('Logged'));
    const doc = sim.addDocument({ title: 'Akte F7', content: 'Vermerk' }).id;
    const hold = sim.faults.inject({ route: 'PATCH /api/documents/{id}/', kind: 'hold', after: true, times: 1 });
    const accepted = await call<{ event_id: number }>(server.url, '/api/webhook/dms', {
      token: API_TOKEN,
      body: { event: 'document_updated', doc_id: String(doc) },
    });
    assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
    await until(
      () => sim.store.getDocument(doc)?.title,
      (title) => title === 'Akte F7 gelesen',
      'the dms to apply the write',
    );
    await server.kill('SIGKILL');
    sim.faults.release(hold.id);
    assert.equal(logged().length, 0, 'nothing was sent before the kill');

    server = await startChildServer(dirs);
    await until(
      () => event(server!, accepted.body.event_id),
      (e) => e.status === 'done' || e.status === 'failed',
      'the delivery the kill cut short to end after the restart',
    );
    await until(
      () => logged().length,
      (n) => n > 0,
      'the notification recorded before the write to be sent',
    );
    await until(
      () => fs.readFileSync(path.join(dirs.SVC_DATA_DIR, 'side-effects.json'), 'utf8'),
      (intents) => !/"status":\s*"pending"/.test(intents),
      'no note or notification pending',
    );
    assert.equal(logged().length, 1, 'one notification');
  });
});
