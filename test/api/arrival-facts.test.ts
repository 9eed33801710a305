import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Trace } from '../../server/engine/model.js';
import type { EventRecord } from '../../server/history/event-types.js';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import { arrivalsSettled } from '../helpers/arrivals.js';
import { API_TOKEN, call, startTestServer, tempDir, type TestServer } from '../helpers/test-server.js';
import { startJob, startRig, waitForEvent } from './support/jobs-kit.js';
import { startReceiver } from './support/notify-kit.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A delivery of Paperless's webhook for the document, accepted; its event id. */
async function deliver(url: string, doc: number, event: 'document_added' | 'document_updated'): Promise<number> {
  const res = await call<{ event_id: number }>(url, '/api/webhook/dms', {
    token: API_TOKEN,
    body: { event, doc_id: String(doc) },
  });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return res.body.event_id;
}

const tracesOf = async (url: string, query: string): Promise<Trace[]> =>
  (await call<{ traces: Trace[] }>(url, `/api/traces?${query}&limit=100`, { token: API_TOKEN })).body.traces;

/** The Idempotency-Key of every notification the receiver got about the document (its title names it). */
const keysFor = (receiver: Receiver, doc: number) =>
  receiver.received.filter((r) => r.body.includes(`#${doc}#`)).map((r) => String(r.headers['idempotency-key']));

async function runJob(url: string, rule: string): Promise<void> {
  const res = await startJob(url, `rule_id=${rule}&dry_run=false`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal((await waitForEvent(url, res.body.event_id as number)).status, 'done');
}

describe('with the audit log off, the state comparison covers the text', () => {
  it("a person's content edit made during the service's write is not taken for its echo: the person's webhook runs the rules", async () => {
    const rig = await startRig(
      'rules:\n  - id: bang\n    on: [updated]\n    when: { title: { contains: "" } }\n    actions:\n      - set_title: "{{ doc.title }}!"\n',
    );
    try {
      rig.sim.setAuditLog(false);
      // Paperless answers the service's PATCH with the document read after the save: ben's new text is in it.
      rig.sim.duringNextWrite(6, { content: 'Kündigung zum 31.12.' }, 'ben', { webhook: false });
      assert.equal(
        (await waitForEvent(rig.server.url, await deliver(rig.server.url, 6, 'document_updated'))).status,
        'done',
      );
      const personal = await deliver(rig.server.url, 6, 'document_updated');
      await arrivalsSettled(rig.server.url);
      const event = await call<EventRecord>(rig.server.url, `/api/events/${personal}`, { token: API_TOKEN });
      assert.equal(event.status, 200, "the person's delivery was not dropped as the service's own echo");
      assert.equal(event.body.status, 'done');
      assert.equal(
        (await tracesOf(rig.server.url, `event_id=${personal}`)).length,
        1,
        "the rule ran for the person's edit",
      );
    } finally {
      await rig.close();
    }
  });
});

const NOTIFY = (id: string, on: string, when: string, action: string) => `
  - id: ${id}
    on: [${on}]
    when: { title: { contains: "${when}" } }
    actions:
      - ${action}
      - notify: { to: hook, title: "#{{ doc.id }}# ${id}", message: "{{ doc.title }}" }
`;

describe('one change, one idempotency key, whichever path runs it first', () => {
  let sim: Simulator;
  let server: TestServer;
  let receiver: Receiver;

  before(async () => {
    receiver = await startReceiver();
    sim = await startSimulator();
    const rulesDir = tempDir();
    fs.writeFileSync(
      path.join(rulesDir, 'rules.yml'),
      `rules:${NOTIFY('checked', 'added', 'Beleg F8', 'set_title: "Beleg F8 geprüft"')}
  - id: stamp
    on: [added]
    when: { title: { contains: "Eingang F6" } }
    actions:
      - add_note: "Eingegangen"
`,
    );
    const targets = JSON.stringify({ hook: { url: `${receiver.url}/hook` } });
    server = await startTestServer(
      { SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token, SVC_NOTIFY_TARGETS: targets },
      { rulesDir },
    );
  });
  after(async () => {
    await server.close();
    await sim.close();
    await receiver.close();
  });

  it('a job and the later "Document Added" delivery of the same new document send one notification under one key', async () => {
    const doc = sim.addDocument({ title: 'Beleg F8 neu', content: 'Quittung' }).id;
    await runJob(server.url, 'checked');
    assert.equal(sim.store.getDocument(doc)?.title, 'Beleg F8 geprüft');
    assert.equal(keysFor(receiver, doc).length, 1, 'the job sent it');

    const added = await deliver(server.url, doc, 'document_added');
    assert.equal((await waitForEvent(server.url, added)).status, 'done');
    const [trace] = await tracesOf(server.url, `event_id=${added}&rule_id=checked`);
    assert.equal(trace?.status, 'matched', 'the added arrival ran its rule');
    const notify = trace.actions.find((a) => a.action === 'notify');
    assert.equal(notify?.status, 'skipped', JSON.stringify(notify));
    assert.match(notify?.detail ?? '', /already sent for this change/);
    assert.equal(keysFor(receiver, doc).length, 1, 'one notification for the one change');
  });

  it('a notes-only rule run by a job and by the "Document Added" delivery writes the note once', async () => {
    const doc = sim.addDocument({ title: 'Eingang F6', content: 'Brief' }).id;
    // The job's page is read (and answered later): the job plans on the document as it was before the delivery.
    const page = sim.faults.inject({
      route: 'GET /api/documents/',
      kind: 'hold',
      after: true,
      times: 1,
      params: { id__in: new RegExp(`^${doc}$`) },
    });
    const job = await startJob(server.url, 'rule_id=stamp&dry_run=false');
    assert.equal(job.status, 200, JSON.stringify(job.body));
    for (let i = 0; i < 3000 && page.hits === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(page.hits, 1, "the job's read of the document is held");
    const added = await deliver(server.url, doc, 'document_added');
    assert.equal((await waitForEvent(server.url, added)).status, 'done');
    assert.deepEqual(
      sim.store.getDocument(doc)?.notes.map((n) => n.note),
      ['Eingegangen'],
    );
    sim.faults.release(page.id);
    assert.equal((await waitForEvent(server.url, job.body.event_id as number)).status, 'done');
    assert.deepEqual(
      sim.store.getDocument(doc)?.notes.map((n) => n.note),
      ['Eingegangen'],
      'the job re-read the document before adding its note',
    );
  });
});

describe('catch-up picks the triggers from facts', () => {
  it('an edit made while the service was down runs the updated rules, for a document added before and one added meanwhile', async () => {
    const receiver = await startReceiver();
    const sim = await startSimulator();
    const dataDir = tempDir();
    const rulesDir = tempDir();
    fs.writeFileSync(
      path.join(rulesDir, 'rules.yml'),
      `rules:${NOTIFY('seen', 'added, updated', '', 'add_tags: [Receipt]')}
  - id: invoice
    on: [updated]
    when: { title: { contains: Rechnung } }
    actions:
      - add_tags: [Rechnung]
`,
    );
    const targets = JSON.stringify({ hook: { url: `${receiver.url}/hook` } });
    const start = () =>
      startTestServer(
        { SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token, SVC_NOTIFY_TARGETS: targets },
        { dataDir, rulesDir },
      );
    const tagNames = (id: number) =>
      (sim.store.getDocument(id)?.tags ?? []).map((t) => sim.store.objects.tags.find((o) => o.id === t)?.name).sort();
    let server = await start();
    try {
      const early = sim.addDocument({ title: 'Brief', content: 'Hallo' }).id;
      assert.equal((await waitForEvent(server.url, await deliver(server.url, early, 'document_added'))).status, 'done');
      assert.ok(tagNames(early).includes('Receipt'));
      assert.equal(keysFor(receiver, early).length, 1);
      await server.close();

      // While the service is down: ben edits the document it handled, and a new one arrives that ben edits too.
      sim.editAs(early, { title: 'Rechnung 42', tags: [] }, 'ben');
      const late = sim.addDocument({ title: 'Scan', content: 'Lieferschein' }).id;
      sim.editAs(late, { title: 'Rechnung 43' }, 'ben');

      server = await start();
      const catchUps = async () =>
        (await call<{ events: EventRecord[] }>(server.url, '/api/events?kind=catchup', { token: API_TOKEN })).body
          .events;
      let [event] = await catchUps();
      while (!event) [event] = await catchUps();
      const done = await waitForEvent(server.url, event.event_id);
      assert.equal(done.status, 'done', JSON.stringify(done));
      assert.equal(done.catchup?.added, 1, 'the document added meanwhile is added');
      assert.equal(done.catchup?.updated, 2, 'both edits are updates');

      assert.deepEqual(tagNames(early), ['Receipt', 'Rechnung'], 'the updated rule ran on the edited document');
      assert.ok(tagNames(late).includes('Receipt'), 'the added rules ran on the new, edited document');
      assert.ok(tagNames(late).includes('Rechnung'), 'the updated rules ran on the new, edited document');
      const earlyKeys = keysFor(receiver, early);
      assert.equal(earlyKeys.length, 2, "the person's edit is a new change: its notification is sent");
      assert.notEqual(earlyKeys[0], earlyKeys[1]);
      assert.equal(keysFor(receiver, late).length, 1, 'the new document is notified once');
    } finally {
      await server.close();
      await sim.close();
      await receiver.close();
    }
  });
});
