import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import { PROFILES, behaviourOfProfile } from '../helpers/profiles.js';
import { API_TOKEN, call, type TestServer } from '../helpers/test-server.js';
import { startJob, waitForEvent } from './support/jobs-kit.js';
import { runReal, serverWithRules, tracesOf } from './support/real-run-kit.js';

// Owner and permission actions through the real app, the real client and the simulator's Paperless permissions.

const RULES = `
rules:
  - id: share-invoices
    description: Invoices are shared with the Family group; carla (the tax adviser) may edit them
    when: { document_type: Rechnung }
    actions:
      - add_permissions:
          view: { groups: [Family] }
          change: { users: [carla] }
  - id: scans-to-ben
    description: Scans belong to ben
    when: { original_file_name: { starts_with: Scan_ } }
    actions:
      - set_owner: ben
`;

describe('owner and permission actions with a superuser token', () => {
  let sim: Simulator;
  let server: TestServer;
  before(async () => {
    sim = await startSimulator();
    sim.store.getDocument(7)!.owner = 3; // the scan is anna's
    server = await serverWithRules(sim, sim.token, RULES);
  });
  after(async () => {
    await server?.close();
    await sim?.close();
  });

  it('a run gives the scan to ben: the trace names the old and new owner, the dms stores the id', async () => {
    const res = await runReal(server, 7);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const trace = res.body.traces.find((t) => t.rule_id === 'scans-to-ben');
    assert.deepEqual(trace?.changes.owner, { from: 'anna', to: 'ben' });
    assert.equal(trace?.actions[0].status, 'applied');
    assert.equal(sim.store.getDocument(7)?.owner, 4);
  });

  it('a job shares every invoice, reading documents with their permissions; a second job writes nothing', async () => {
    sim.resetCounts();
    const first = await waitForEvent(
      server.url,
      (await startJob(server.url, 'rule_id=share-invoices&dry_run=false')).body.event_id as number,
    );
    assert.equal(first.status, 'done');
    assert.equal(first.errors, 0);
    assert.ok(first.changed > 0, JSON.stringify(first));
    const invoice = await fetch(`${sim.url}/api/documents/1/?full_perms=true`, {
      headers: { authorization: `Token ${sim.token}` },
    });
    assert.deepEqual(((await invoice.json()) as { permissions: unknown }).permissions, {
      view: { users: [5], groups: [1] },
      change: { users: [5], groups: [] },
    });

    sim.resetCounts();
    const second = await waitForEvent(
      server.url,
      (await startJob(server.url, 'rule_id=share-invoices&dry_run=false')).body.event_id as number,
    );
    assert.equal(second.changed, 0);
    assert.equal(sim.counts()['PATCH /api/documents/{id}/'] ?? 0, 0);
  });

  it('undo of the job takes the shares away again', async () => {
    const job = await waitForEvent(
      server.url,
      (await startJob(server.url, 'rule_id=share-invoices&dry_run=false')).body.event_id as number,
    );
    const events = await call<{
      events: Array<{ event_id: number; kind: string; rule_id: string | null; changed: number }>;
    }>(server.url, '/api/events?limit=20', {
      token: API_TOKEN,
    });
    const sharing = events.body.events.find(
      (e) => e.rule_id === 'share-invoices' && e.changed > 0 && e.event_id !== job.event_id,
    );
    assert.ok(sharing, 'the job that changed the invoices');
    const undo = await call<{ event_id: number }>(server.url, `/api/events/${sharing.event_id}/revert?dry_run=false`, {
      method: 'POST',
      token: API_TOKEN,
    });
    assert.equal(undo.status, 202, JSON.stringify(undo.body));
    const done = await waitForEvent(server.url, undo.body.event_id);
    assert.equal(done.status, 'done', JSON.stringify(done));
    const invoice = await fetch(`${sim.url}/api/documents/1/?full_perms=true`, {
      headers: { authorization: `Token ${sim.token}` },
    });
    assert.deepEqual(((await invoice.json()) as { permissions: unknown }).permissions, {
      view: { users: [], groups: [] },
      change: { users: [], groups: [] },
    });
  });
});

describe('owner and permission actions with a token whose user is no superuser', () => {
  let sim: Simulator;
  let server: TestServer;
  before(async () => {
    sim = await startSimulator({
      limitedUser: {
        // ben may see and change document 7 (anna's) through a grant, and list users, but not groups.
        permissions: [
          'view_document',
          'change_document',
          'view_tag',
          'view_correspondent',
          'view_documenttype',
          'view_storagepath',
          'view_customfield',
          'view_user',
        ],
        grants: { documents: [7] },
      },
    });
    sim.store.getDocument(7)!.owner = 3;
    server = await serverWithRules(sim, sim.limitedToken as string, RULES);
  });
  after(async () => {
    await server?.close();
    await sim?.close();
  });

  it("Paperless refuses to give away someone else's document: the run is a 502 that says why, and nothing changes", async () => {
    const res = await runReal(server, 7);
    assert.equal(res.status, 502, JSON.stringify(res.body));
    assert.match(
      res.body.error ?? '',
      /403 to PATCH \/api\/documents\/7\/: Insufficient permissions\. \(Paperless lets only a superuser or the document's owner change its owner/,
    );
    const traces = await tracesOf(server, 7);
    const trace = traces.find((t) => t.rule_id === 'scans-to-ben');
    assert.equal(trace?.actions[0].status, 'failed', JSON.stringify(trace));
    assert.equal(sim.store.getDocument(7)?.owner, 3);
  });

  it('a rule that sets permissions fails in its own trace naming view_group', async () => {
    await runReal(server, 7);
    const traces = await tracesOf(server, 7);
    const sharing = traces.find((t) => t.rule_id === 'share-invoices');
    assert.equal(sharing?.status, 'error');
    assert.match(sharing?.error ?? '', /may not view groups \(view_group\)/);
  });
});

const GIVE_AWAY = `
rules:
  - id: scans-to-anna
    description: Scans are filed, noted and handed to anna
    when: { original_file_name: { starts_with: Scan_ } }
    actions:
      - add_tags: [rules-processed]
      - add_note: Abgelegt
      - set_owner: anna
  - id: lease-read
    description: The lease gets a note (carla may view it, not change it)
    when: { title: { starts_with: Mietvertrag } }
    actions:
      - add_note: Gelesen
  - id: bill-sees-lease
    description: The March bill links the lease (carla may change the bill, not the lease)
    when: { title: { starts_with: Telekom Rechnung März } }
    actions:
      - set_custom_fields: { Siehe auch: 8 }
`;

for (const profile of PROFILES) {
  describe(`an ordinary user's token gives its own document away (profile ${profile})`, () => {
    let sim: Simulator;
    let server: TestServer;
    before(async () => {
      sim = await startSimulator({ profile });
      // carla (Accounting: view everything, change_document, add_note) owns the scan.
      sim.store.getDocument(7)!.owner = 5;
      sim.store.groups.find((g) => g.id === 2)!.permissions.push('view_user');
      // carla may view anna's lease (8), not change it.
      sim.store.grants.set(8, { view: { users: [5], groups: [] }, change: { users: [], groups: [] } });
      sim.store.insertObject('custom_fields', {
        name: 'Siehe auch',
        data_type: 'documentlink',
        extra_data: { select_options: [], default_currency: null },
      });
      server = await serverWithRules(sim, sim.tokenFor('carla'), GIVE_AWAY);
    });
    after(async () => {
      await server?.close();
      await sim?.close();
    });

    it('every other change is written first and the owner last; a 2.x 404 after it counts as applied and the trace says so', async () => {
      const res = await runReal(server, 7);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const doc = sim.store.getDocument(7)!;
      assert.equal(doc.owner, 3);
      assert.ok(doc.tags.includes(9), 'the tag was written before the document left');
      assert.deepEqual(
        doc.notes.map((n) => n.note),
        ['Abgelegt'],
      );
      const trace = (await tracesOf(server, 7)).find((t) => t.rule_id === 'scans-to-anna');
      assert.equal(trace?.status, 'matched', JSON.stringify(trace));
      const owner = trace?.actions.find((a) => a.action === 'set_owner');
      assert.equal(owner?.status, 'applied');
      if (profile.startsWith('2.')) assert.match(owner?.detail ?? '', /may no longer see it/);
    });

    it('a job gives several documents away: each gets its tag and note before the owner changes, none fails', async () => {
      const scans = [1, 2].map(
        (n) => sim.addDocument({ original_file_name: `Scan_job_${n}.pdf`, title: `Scan ${n}`, tags: [], owner: 5 }).id,
      );
      const started = await startJob(server.url, 'rule_id=scans-to-anna&dry_run=false');
      const event = await waitForEvent(server.url, started.body.event_id as number);
      assert.deepEqual([event.status, event.errors, event.changed], ['done', 0, 2], JSON.stringify(event));
      for (const id of scans) {
        const doc = sim.store.getDocument(id)!;
        assert.equal(doc.owner, 3, `document ${id}`);
        assert.ok(doc.tags.includes(9), `document ${id}: tagged before it left`);
        assert.deepEqual(
          doc.notes.map((n) => n.note),
          ['Abgelegt'],
        );
      }
    });

    it('a note on a document the token may only view is refused by Paperless and fails in the trace; nothing is stored', async () => {
      await runReal(server, 8);
      const trace = (await tracesOf(server, 8)).find((t) => t.rule_id === 'lease-read');
      assert.equal(trace?.actions[0].status, 'failed', JSON.stringify(trace));
      assert.match(JSON.stringify(trace), /403.*Insufficient permissions to create notes/);
      assert.deepEqual(sim.store.getDocument(8)!.notes, []);
    });

    const checked = behaviourOfProfile(profile).linkTargetsChecked;
    it(
      checked
        ? 'a link to a document the token may not change is refused (403, from 2.20.13) and fails in the trace; nothing is stored'
        : 'a link to a document the token may not change is written and mirrored (no check before 2.20.13)',
      async () => {
        await runReal(server, 10);
        const link = sim.store.objects.custom_fields.find((f) => f.name === 'Siehe auch')!.id;
        const trace = (await tracesOf(server, 10)).find((t) => t.rule_id === 'bill-sees-lease');
        const fieldsOf = (id: number) => sim.store.getDocument(id)!.custom_fields.filter((cf) => cf.field === link);
        if (checked) {
          assert.equal(trace?.actions[0].status, 'failed', JSON.stringify(trace));
          assert.match(JSON.stringify(trace), /403.*Insufficient permissions/);
          assert.deepEqual([fieldsOf(10), fieldsOf(8)], [[], []]);
        } else {
          assert.equal(trace?.actions[0].status, 'applied', JSON.stringify(trace));
          assert.deepEqual(fieldsOf(10), [{ field: link, value: [8] }]);
          assert.deepEqual(fieldsOf(8), [{ field: link, value: [10] }]);
        }
      },
    );
  });
}
