import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import type { Trace } from '../../server/engine/model.js';
import { API_TOKEN, call, login, type TestServer, saveRuleFile } from '../helpers/test-server.js';
import { waitForEvent } from './support/jobs-kit.js';
import { runRule, startNotifyServer, startReceiver, startSmtp, type Received } from './support/notify-kit.js';

const RULES = `
rules:
  - id: tell-phone
    on: [manual]
    actions:
      - add_tags: [rules-processed]
      - notify: { to: phone, title: "New: {{ doc.title }}", message: "Document {{ doc.id }} was tagged" }
  - id: mail-office
    on: [manual]
    actions:
      - add_note: "Checked by dms-rules"
      - notify: { to: office, title: "Checked {{ doc.id }}", message: "Document {{ doc.id }} got a note" }
  - id: arrival
    on: [added]
    when: { title: { contains: Eingang } }
    actions:
      - notify: { to: phone, message: "Arrived: {{ doc.title }}" }
  - id: broken-endpoint
    on: [manual]
    actions:
      - set_title: "Renamed {{ doc.id }}"
      - notify: { to: failing, message: "never arrives" }
`;

describe('notify action: HTTP and SMTP targets from the settings', () => {
  let sim: Simulator;
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let posts: Received[];
  let mails: string[];
  let doc: number;

  const run = (ruleId: string, dryRun: boolean) => runRule(server, doc, ruleId, dryRun);
  const notifyAction = (trace: Trace) => trace.actions.find((a) => a.action === 'notify');

  before(async () => {
    // 400 on /fail: a refusal that trying again cannot fix (a 5xx is retried, see notify-durable.test.ts).
    receiver = await startReceiver((path) => (path === '/fail' ? 400 : 200));
    smtp = await startSmtp();
    posts = receiver.received;
    mails = smtp.mails;

    sim = await startSimulator();
    doc = sim.addDocument({ title: 'Stromrechnung März', tags: [] }).id;
    // Targets live in config.yml as a mapping, like an administrator writes them.
    server = await startNotifyServer(sim, RULES, [
      '  phone:',
      `    url: ${receiver.url}/topic`,
      '    format: text',
      '    headers: { Authorization: "Bearer secret-ntfy-token" }',
      '  office:',
      `    smtp: ${smtp.url}`,
      '    from: dms-rules@example.org',
      '    to: [office@example.org]',
      '  failing:',
      `    url: ${receiver.url}/fail`,
    ]);
  });
  after(async () => {
    await server?.close();
    await sim?.close();
    await receiver?.close();
    await smtp?.close();
  });

  it('a dry run shows what would be sent and sends nothing', async () => {
    const trace = await run('tell-phone', true);
    assert.equal(trace.status, 'matched');
    const action = notifyAction(trace);
    assert.equal(action?.status, 'planned');
    assert.match(action?.detail ?? '', /^would send to phone: "New: Stromrechnung März" "Document \d+ was tagged"/);
    assert.equal(posts.length, 0);
  });

  it("a real run that writes the rule's change posts once; a re-run that changes nothing does not post again", async () => {
    const trace = await run('tell-phone', false);
    assert.equal(notifyAction(trace)?.status, 'applied', JSON.stringify(trace.actions));
    assert.equal(posts.length, 1);
    assert.equal(posts[0].path, '/topic');
    assert.equal(posts[0].body, `Document ${doc} was tagged`);
    assert.equal(posts[0].headers.title, 'New: Stromrechnung März');
    assert.equal(posts[0].headers.authorization, 'Bearer secret-ntfy-token');
    assert.match(String(posts[0].headers['idempotency-key']), new RegExp(`^dms-rules-${doc}-[\\w-]{27}$`));

    const again = await run('tell-phone', false);
    assert.equal(again.status, 'matched');
    assert.equal(notifyAction(again)?.status, 'skipped');
    assert.match(notifyAction(again)?.detail ?? '', /not sent: the rule has no change to write/);
    assert.equal(posts.length, 1);
  });

  it('a rule on "added" sends once for the new document though it changes nothing, and not for an update', async () => {
    const arrived = sim.addDocument({ title: 'Eingang Brief', content: 'Sehr geehrte Damen und Herren', tags: [] }).id;
    const deliver = async (event: string) => {
      const res = await call<{ event_id: number }>(server.url, '/api/webhook/dms', {
        method: 'POST',
        token: API_TOKEN,
        body: { event, doc_id: String(arrived) },
      });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      return waitForEvent(server.url, res.body.event_id);
    };
    const before = posts.length;
    assert.equal((await deliver('document_added')).status, 'done');
    assert.deepEqual(
      posts.slice(before).map((p) => p.body),
      ['Arrived: Eingang Brief'],
    );
    assert.equal((await deliver('document_updated')).status, 'done');
    assert.equal(posts.length, before + 1);
  });

  it('sends e-mail over SMTP with the title as subject', async () => {
    const trace = await run('mail-office', false);
    assert.equal(notifyAction(trace)?.status, 'applied', JSON.stringify(trace));
    assert.equal(mails.length, 1);
    assert.match(mails[0], new RegExp(`Subject: Checked ${doc}`));
    assert.match(mails[0], /To: office@example\.org/);
    assert.match(mails[0], new RegExp(`Document ${doc} got a note`));
    assert.match(mails[0], new RegExp(`Idempotency-Key: dms-rules-${doc}-`));
    assert.match(mails[0], new RegExp(`Message-ID: <dms-rules-${doc}-[\\w-]+@dms-rules>`));
  });

  it('a target that refuses for good (HTTP 400) makes the trace an error naming the target', async () => {
    const trace = await run('broken-endpoint', false);
    assert.equal(trace.status, 'error');
    assert.equal(notifyAction(trace)?.status, 'failed');
    assert.match(trace.error ?? '', /notify target "failing" failed: answered HTTP 400/);
  });

  it("refuses to save a rule that names an unknown target, and never shows the targets' secrets", async () => {
    const res = await saveRuleFile(server.url, 'notify.yml', RULES.replace('to: office', 'to: boss@example.org'));
    assert.equal(res.status, 422);
    assert.match(
      String(res.body.error),
      /there is no notify target "boss@example.org"; the settings define "phone", "office", "failing"/,
    );
    const settings = await call(server.url, '/api/ui/settings', { cookie: await login(server.url) });
    assert.equal(settings.status, 200);
    assert.deepEqual(settings.body.notify_targets, ['phone', 'office', 'failing']);
    const text = JSON.stringify(settings.body);
    assert.ok(!text.includes('secret-ntfy-token') && !text.includes('/topic') && !text.includes('smtp://'), text);
  });
});
