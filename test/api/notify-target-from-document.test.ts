import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import type { TestServer } from '../helpers/test-server.js';
import { runRule, startNotifyServer, startReceiver } from './support/notify-kit.js';

const RULES = `
rules:
  - id: tell-owner
    on: [manual]
    actions:
      - notify: { to: "{{ doc.owner | default: 'office' }}", message: "{{ doc.title }} is yours", when: always }
`;

describe("notify to a target named by the document (the owner's own target)", () => {
  let sim: Simulator;
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  before(async () => {
    receiver = await startReceiver(() => 200);
    sim = await startSimulator();
    server = await startNotifyServer(sim, RULES, [
      '  anna:',
      `    url: ${receiver.url}/anna`,
      '  office:',
      `    url: ${receiver.url}/office`,
    ]);
  });
  after(async () => {
    await server?.close();
    await sim?.close();
    await receiver?.close();
  });

  it("sends to the owner's target, to the default without an owner, and fails naming a user with no target", async () => {
    const owned = sim.addDocument({ title: 'Kontoauszug', owner: 3, tags: [] }).id;
    const unowned = sim.addDocument({ title: 'Flyer', owner: null, tags: [] }).id;
    const bens = sim.addDocument({ title: 'Zeugnis', owner: 4, tags: [] }).id;

    const first = await runRule(server, owned, 'tell-owner', false);
    assert.equal(first.status, 'matched', JSON.stringify(first));
    assert.equal((await runRule(server, unowned, 'tell-owner', false)).status, 'matched');
    assert.deepEqual(
      receiver.received.map((p) => [p.path, (JSON.parse(p.body) as { message: string }).message]),
      [
        ['/anna', 'Kontoauszug is yours'],
        ['/office', 'Flyer is yours'],
      ],
    );
    const missing = await runRule(server, bens, 'tell-owner', false);
    assert.equal(missing.status, 'error');
    assert.match(missing.error ?? '', /there is no notify target "ben" in the settings/);
    assert.equal(receiver.received.length, 2);
  });
});
