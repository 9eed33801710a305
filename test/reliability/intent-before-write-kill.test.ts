import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import { startReceiver } from '../api/support/notify-kit.js';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { deliver, ended, pendingIntents, serviceDirs, until } from './support/chaos-kit.js';

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
    dirs = serviceDirs(sim, RULES, `notify_targets:\n  hook:\n    url: ${receiver.url}/hook\n`);
  });
  after(async () => {
    await server?.kill();
    await sim.close();
    await receiver.close();
  });

  /**
   * Delivers "Document Updated" for a new document titled `title`, kills the service once Paperless applied the
   * run's write (`written`) and before its answer, and restarts it; resolves once the cut-short delivery ended,
   * its notification was sent and no intent is pending. `sent` counts the notifications of the rule under test.
   */
  async function killAfterWrite(title: string, written: string, sent: () => number): Promise<number> {
    server ??= await startChildServer(dirs);
    const doc = sim.addDocument({ title, content: 'Mietvertrag' }).id;
    const hold = sim.faults.inject({ route: 'PATCH /api/documents/{id}/', kind: 'hold', after: true, times: 1 });
    const accepted = await deliver(server.url, doc);
    await until(
      () => sim.store.getDocument(doc)?.title,
      (t) => t === written,
      'the dms to apply the write',
    );
    await server.kill('SIGKILL');
    sim.faults.release(hold.id);
    assert.equal(sent(), 0, 'nothing was sent before the kill');

    server = await startChildServer(dirs);
    await ended(server.url, accepted, 'the delivery the kill cut short to end after the restart');
    await until(sent, (n) => n > 0, 'the notification recorded before the write to be sent');
    // Everything the restart had to do is done: the delivery ended and no intent is pending any more.
    await until(
      () => pendingIntents(dirs.SVC_DATA_DIR),
      (n) => n === 0,
      'no note or notification pending',
    );
    return doc;
  }

  test('the on_change notification is neither lost nor sent twice', async () => {
    const doc = await killAfterWrite('Vertrag F7', 'Vertrag F7 geprüft', () => receiver.received.length);
    assert.equal(receiver.received.length, 1, 'one notification');
    assert.equal(sim.store.getDocument(doc)?.title, 'Vertrag F7 geprüft');
  });

  test('an always notification is neither lost nor sent twice', async () => {
    const logged = () => receiver.received.filter((r) => r.body.includes('Logged')).length;
    await killAfterWrite('Akte F7', 'Akte F7 gelesen', logged);
    assert.equal(logged(), 1, 'one notification');
  });
});
