import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import type { Trace } from '../../server/engine/model.js';
import { PROFILES as RELEASES, apiVersionOf } from '../helpers/profiles.js';
import { API_TOKEN, call, login, type TestServer } from '../helpers/test-server.js';
import { startJob, waitForEvent } from './support/jobs-kit.js';
import { runReal, serverWithRules, tracesOf } from './support/real-run-kit.js';

// Runs through the real app against the simulator posing as the Paperless releases and tokens users have.

const RULES = `
rules:
  - id: scan-title
    description: Needs nothing but the title
    when: { original_file_name: { starts_with: Scan_ } }
    actions:
      - set_title: "Scan vom {{ doc.created }}"
  - id: scan-amount
    description: Needs the custom fields
    when: { original_file_name: { starts_with: Scan_ } }
    actions:
      - set_custom_fields: { Betrag: "12.50" }
  - id: scan-amount-in-template
    description: Reads a custom field only inside a template
    when: { original_file_name: { starts_with: Scan_ } }
    actions:
      - add_note: "Betrag: {{ doc.custom_fields.Betrag }}"
  - id: long-values
    description: Hits Paperless's real limits
    when: { original_file_name: { starts_with: Long_ } }
    actions:
      - set_title: "{{ doc.content }}😀😀 and more"
      - set_custom_fields: { Link: "https://example.com/{{ doc.content }}{{ doc.content }}" }
`;

/** Every release group the simulator poses as; 3.0 is spoken to with API version 10, 2.x with 9. */
const PROFILES = RELEASES.map((name) => ({ name, api: apiVersionOf(name) }));

for (const profile of PROFILES)
  describe(`a real run against Paperless-ngx ${profile.name}`, () => {
    let sim: Simulator;
    let server: TestServer;
    before(async () => {
      sim = await startSimulator({ profile: profile.name });
      sim.store.insertObject('custom_fields', {
        name: 'Link',
        data_type: 'url',
        extra_data: { select_options: [], default_currency: null },
      });
      server = await serverWithRules(sim, sim.token, RULES);
    });
    after(async () => {
      await server?.close();
      await sim?.close();
    });

    it(`writes every rule through API version ${profile.api}`, async () => {
      const res = await runReal(server, 7);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(
        res.body.traces.map((t) => [t.rule_id, t.status, t.error]),
        [
          ['scan-title', 'matched', null],
          ['scan-amount', 'matched', null],
          ['scan-amount-in-template', 'matched', null],
          ['long-values', 'not_matched', null],
        ],
      );
      const doc = sim.store.getDocument(7);
      assert.equal(doc?.title, 'Scan vom 2025-03-07');
      assert.deepEqual(doc?.custom_fields, [{ value: 'EUR12.50', field: 1 }]);
      assert.equal(sim.counts()['PATCH /api/documents/{id}/'], 1);
    });

    it('cuts a long title at 128 code points and fails a URL over 200 characters in the trace, before the dms sees it', async () => {
      const doc = sim.addDocument({
        original_file_name: 'Long_1.pdf',
        title: 'Long',
        content: 'a'.repeat(126),
        tags: [],
      });
      const res = await runReal(server, doc.id);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const trace = res.body.traces.find((t) => t.rule_id === 'long-values');
      assert.equal(trace?.status, 'error');
      const linkAction = trace?.actions.find((a) => a.action === 'set_custom_fields');
      assert.match(JSON.stringify(linkAction), /Link.*is 272 characters long; Paperless keeps URLs of at most 200/);
      const stored = sim.store.getDocument(doc.id);
      assert.equal(stored?.title, `${'a'.repeat(126)}😀😀`);
      assert.deepEqual(stored?.custom_fields, []);
    });
  });

for (const profile of PROFILES)
  describe(`a token whose user may not view custom fields (Paperless-ngx ${profile.name})`, () => {
    let sim: Simulator;
    let server: TestServer;
    before(async () => {
      sim = await startSimulator({
        profile: profile.name,
        limitedUser: {
          permissions: [
            'view_document',
            'change_document',
            'view_tag',
            'view_correspondent',
            'view_documenttype',
            'view_storagepath',
            'view_note',
            'add_note',
          ],
        },
      });
      server = await serverWithRules(sim, sim.limitedToken as string, RULES);
    });
    after(async () => {
      await server?.close();
      await sim?.close();
    });

    it('runs the rules that need no custom field and fails the others in their own trace, naming the permission', async () => {
      const res = await runReal(server, 7);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const [title, amount, template] = res.body.traces;
      assert.equal(title.rule_id, 'scan-title');
      assert.equal(title.status, 'matched');
      assert.equal(sim.store.getDocument(7)?.title, 'Scan vom 2025-03-07');
      for (const blocked of [amount, template]) {
        assert.equal(blocked.status, 'error');
        assert.match(blocked.error ?? '', /the Paperless token may not view custom fields \(view_customfield\)/i);
      }
      assert.deepEqual(sim.store.getDocument(7)?.custom_fields, []);
      assert.deepEqual(sim.store.getDocument(7)?.notes, []);
    });

    it('saving a rule that names a custom field warns that custom field names cannot be checked, instead of refusing it', async () => {
      const cookie = await login(server.url);
      const id = (await call(server.url, '/api/ui/rules', { cookie, body: { filename: 'amount.yml' } })).body
        .id as string;
      const rule =
        'rules:\n  - id: amount\n    when: { custom_fields.Betrag: { exists: false } }\n    actions:\n      - set_custom_fields: { Nettobetrag: 1 }\n';
      const res = await call(server.url, `/api/ui/rules/${id}`, { cookie, method: 'PUT', rawBody: rule });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.match(JSON.stringify(res.body), /may not view custom fields \(view_customfield\)/);
    });

    it('a job over a rule that needs custom fields records the missing permission for each document; one that does not runs', async () => {
      const blocked = await startJob(server.url, 'rule_id=scan-amount&dry_run=true');
      const event = await waitForEvent(server.url, blocked.body.event_id as number);
      assert.equal(event.status, 'done');
      assert.equal(event.processed, 3, 'documents 7, 10 and 13 are the ones this token sees');
      assert.equal(event.errors, 3);
      const traces = await call<{ traces: Trace[] }>(server.url, `/api/traces?event_id=${event.event_id}`, {
        token: API_TOKEN,
      });
      assert.ok(
        traces.body.traces.every((t) => t.status === 'error' && /view_customfield/.test(t.error ?? '')),
        JSON.stringify(traces.body.traces[0]),
      );
      const fine = await waitForEvent(
        server.url,
        (await startJob(server.url, 'rule_id=scan-title&dry_run=true')).body.event_id as number,
      );
      assert.equal(fine.status, 'done');
      assert.equal(fine.errors, 0);
    });

    it('tags the token may not see are looked up once, not on every document that carries them', async () => {
      sim.resetCounts();
      // Documents 7, 10 and 13 carry tags owned by another user (ids 1, 2, 4, 5): invisible to this token.
      for (const id of [7, 10, 13, 7, 10, 13]) assert.equal((await runReal(server, id)).status, 200);
      assert.ok((sim.counts()['GET /api/tags/'] ?? 0) <= 2, `vocabulary refetches: ${sim.counts()['GET /api/tags/']}`);
    });

    it('a document the token may not see is a 404 naming it', async () => {
      const res = await runReal(server, 1);
      assert.equal(res.status, 404);
      assert.match(res.body.error ?? '', /Document 1 was not found/);
    });
  });

describe('a token whose user may view documents but not change them', () => {
  let sim: Simulator;
  let server: TestServer;
  before(async () => {
    sim = await startSimulator({
      limitedUser: {
        permissions: [
          'view_document',
          'view_tag',
          'view_correspondent',
          'view_documenttype',
          'view_storagepath',
          'view_customfield',
          'view_note',
        ],
      },
    });
    server = await serverWithRules(sim, sim.limitedToken as string, RULES);
  });
  after(async () => {
    await server?.close();
    await sim?.close();
  });

  it('a real run fails the write in the traces, naming change_document', async () => {
    const res = await runReal(server, 7);
    assert.equal(res.status, 502, JSON.stringify(res.body));
    assert.match(
      res.body.error ?? '',
      /403 to PATCH \/api\/documents\/7\/: You do not have permission to perform this action\. \(the Paperless token's user lacks the permission change_document\)/,
    );
    const traces = await tracesOf(server, 7);
    const title = traces.find((t) => t.rule_id === 'scan-title');
    assert.match(JSON.stringify(title), /change_document/);
    assert.equal(sim.store.getDocument(7)?.title, 'Scan_2025-03-10_081512');
  });
});
