import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import type { Trace } from '../../server/engine/model.js';
import { API_TOKEN, call, startTestServer, tempDir, type TestServer, saveRuleFile } from '../helpers/test-server.js';
import { startJob, waitForEvent } from './support/jobs-kit.js';
import { runRule, startReceiver } from './support/notify-kit.js';

const RULES = `
rules:
  - id: only-notify
    on: [manual]
    actions:
      - notify: { to: hook, message: "Hello {{ doc.id }}" }
    tests:
      - document: { title: Brief }
        trigger: manual
        expect: { matched: true, notify: [] }
  - id: every-run
    on: [manual]
    actions:
      - notify: { to: hook, message: "Run for {{ doc.id }}", when: always }
  - id: due-soon
    on: [manual]
    when: { title: { contains: Zahlbar } }
    actions:
      - notify: { to: hook, title: "Due soon", message: "{{ doc.title }} is due", when: once }
    tests:
      - document: { title: Zahlbar bis Freitag }
        trigger: manual
        expect: { matched: true, notify: [hook] }
`;

/** What a trace says about its actions; a dry run's "would send" is what the real run reports as "sent". */
const said = (trace: Trace) =>
  [trace.status, ...trace.actions.map((a) => `${a.status}: ${a.detail ?? ''}`)].map((line) =>
    trace.dry_run ? line.replace(/^planned: would send /, 'applied: sent ') : line,
  );

describe('notify when: on_change, always, once — the dry run says what the real run does', () => {
  let sim: Simulator;
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let dataDir: string;
  let rulesDir: string;
  let doc: number;
  let due: number;

  const start = async () => {
    const targets = JSON.stringify({ hook: { url: `${receiver.url}/hook` } });
    server = await startTestServer(
      { SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token, SVC_NOTIFY_TARGETS: targets },
      { dataDir, rulesDir },
    );
  };
  const run = (document: number, ruleId: string, dryRun?: boolean) => runRule(server, document, ruleId, dryRun);
  const runJob = async (ruleId: string, dryRun: boolean): Promise<Trace[]> => {
    const res = await startJob(server.url, `rule_id=${ruleId}&dry_run=${dryRun}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const eventId = res.body.event_id as number;
    assert.equal((await waitForEvent(server.url, eventId)).status, 'done');
    return (
      await call<{ traces: Trace[] }>(server.url, `/api/traces?event_id=${eventId}&rule_id=${ruleId}`, {
        token: API_TOKEN,
      })
    ).body.traces;
  };

  before(async () => {
    receiver = await startReceiver();
    sim = await startSimulator();
    doc = sim.addDocument({ title: 'Brief', tags: [] }).id;
    due = sim.addDocument({ title: 'Zahlbar bis Freitag', tags: [] }).id;
    dataDir = tempDir('dms-rules-notify-when-data-');
    rulesDir = tempDir('dms-rules-notify-when-rules-');
    fs.writeFileSync(path.join(rulesDir, 'notify.yml'), RULES);
    await start();
  });
  after(async () => {
    await server?.close();
    await sim?.close();
    await receiver?.close();
  });

  it('a notify-only rule with the default on_change: dry and real run both say it is not sent, and nothing is', async () => {
    const dry = await run(doc, 'only-notify', true);
    const real = await run(doc, 'only-notify', false);
    assert.deepEqual(said(dry), said(real));
    assert.equal(real.actions[0].status, 'skipped');
    assert.match(real.actions[0].detail ?? '', /not sent: the rule has no change to write \(when: on_change/);
    assert.equal(receiver.received.length, 0);
  });

  it('when: always sends on every real run that matches, each with its own Idempotency-Key', async () => {
    const dry = await run(doc, 'every-run', true);
    const first = await run(doc, 'every-run', false);
    const second = await run(doc, 'every-run', false);
    assert.deepEqual(said(dry), said(first));
    assert.deepEqual(said(first), said(second));
    assert.equal(first.actions[0].status, 'applied');
    assert.match(dry.actions[0].detail ?? '', /^would send to hook: "Run for \d+" \(when: always\)$/);
    const posts = receiver.received.splice(0);
    assert.deepEqual(
      posts.map((p) => JSON.parse(p.body) as unknown),
      [
        { title: '', message: `Run for ${doc}` },
        { title: '', message: `Run for ${doc}` },
      ],
    );
    assert.notEqual(posts[0].headers['idempotency-key'], posts[1].headers['idempotency-key']);
  });

  it('when: once sends once per document; afterwards dry and real run say "already sent once", also after a restart', async () => {
    const dryBefore = await run(due, 'due-soon', true);
    const first = await run(due, 'due-soon', false);
    assert.deepEqual(said(dryBefore), said(first));
    assert.equal(first.actions[0].status, 'applied');
    assert.equal(receiver.received.length, 1);
    assert.deepEqual(JSON.parse(receiver.received[0].body), {
      title: 'Due soon',
      message: 'Zahlbar bis Freitag is due',
    });

    const dryAfter = await run(due, 'due-soon', true);
    const again = await run(due, 'due-soon', false);
    assert.deepEqual(said(dryAfter), said(again));
    assert.equal(again.actions[0].status, 'skipped');
    assert.match(
      again.actions[0].detail ?? '',
      /not sent: already sent once for this document \(when: once\) on 20\d\d-/,
    );

    await server.close();
    await start();
    const afterRestart = await run(due, 'due-soon', false);
    assert.equal(afterRestart.actions[0].status, 'skipped');
    assert.match(afterRestart.actions[0].detail ?? '', /already sent once for this document/);
    assert.equal(receiver.received.length, 1);
    receiver.received.splice(0);
  });

  it("a rule test that expects a send the real run would not make fails the save, with the run's reason", async () => {
    const res = await saveRuleFile(
      server.url,
      'notify.yml',
      RULES.replace('expect: { matched: true, notify: [] }', 'expect: { matched: true, notify: [hook] }'),
    );
    assert.equal(res.status, 422);
    assert.match(
      String(res.body.error),
      /notify: expected \[hook\], a real run would send to \[\]; hook is not sent: the rule has no change to write \(when: on_change, trigger manual\)/,
    );
  });

  it('a daily job with when: once reminds each matching document once, without a marker tag', async () => {
    const other = sim.addDocument({ title: 'Zahlbar am Montag', tags: [] }).id;
    const dry = await runJob('due-soon', true);
    const real = await runJob('due-soon', false);
    const byDoc = (traces: Trace[]) => new Map(traces.map((t) => [t.document, said(t)]));
    assert.deepEqual(byDoc(dry), byDoc(real));
    assert.deepEqual(
      receiver.received.map((p) => (JSON.parse(p.body) as { message: string }).message),
      ['Zahlbar am Montag is due'],
    );
    assert.equal(real.find((t) => t.document === due)?.actions[0].status, 'skipped');
    assert.equal(real.find((t) => t.document === other)?.actions[0].status, 'applied');

    const nextDay = await runJob('due-soon', false);
    assert.ok(nextDay.length >= 2);
    assert.ok(nextDay.every((t) => t.actions[0].status === 'skipped'));
    assert.equal(receiver.received.length, 1);
  });
});
