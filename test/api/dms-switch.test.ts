import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import type { EventRecord } from '../../server/history/event-types.js';
import { cursorFileName } from '../../server/runs/catch-up/dms-cursors.js';
import { API_TOKEN, call, login, startTestServer, tempDir, type TestServer } from '../helpers/test-server.js';
import { waitForEvent } from './support/jobs-kit.js';

const RULES = `
rules:
  - id: exclaim
    when: { title: { contains: "" } }
    actions:
      - set_title: "{{ doc.title }}!"
`;

const NOTE_RULE = 'rules:\n  - id: note-it\n    on: [added]\n    actions:\n      - add_note: "seen"\n';

/** A rule that names a tag: saving it checks the name against the vocabulary of the dms in use. */
const NAMES_TAG = (tag: string) => `rules:\n  - id: tags-it\n    actions:\n      - add_tags: [${tag}]\n`;

async function createTag(sim: Simulator, name: string): Promise<void> {
  const res = await fetch(`${sim.url}/api/tags/`, {
    method: 'POST',
    headers: { authorization: `Token ${sim.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, matching_algorithm: 0 }),
  });
  assert.equal(res.status, 201, await res.text());
}

describe('a new dms in the settings applies without a restart (two dms)', () => {
  let a: Simulator;
  let b: Simulator;
  let server: TestServer;
  let cookie: string;

  before(async () => {
    a = await startSimulator();
    b = await startSimulator();
    const dataDir = tempDir('dms-rules-switch-');
    fs.writeFileSync(path.join(dataDir, 'config.yml'), `dms_url: ${a.url}\ndms_token: ${a.token}\n`);
    const rulesDir = tempDir('dms-rules-switch-rules-');
    fs.writeFileSync(path.join(rulesDir, 'exclaim.yml'), RULES);
    fs.writeFileSync(path.join(rulesDir, 'notes.yml'), NOTE_RULE);
    server = await startTestServer({}, { dataDir, rulesDir });
    cookie = await login(server.url);
  });
  after(async () => {
    await server?.close();
    await a?.close();
    await b?.close();
  });

  const settings = (body: unknown) => call(server.url, '/api/ui/settings', { method: 'PUT', body, cookie });
  const run = (document: number) =>
    call(server.url, `/api/run?document=${document}&rule_id=exclaim&dry_run=false`, {
      method: 'POST',
      token: API_TOKEN,
    });
  const health = async () =>
    (await call<{ dms: { url: string; reachable: boolean } }>(server.url, '/api/health?deep=1', { cookie })).body.dms;
  let fileId = '';
  const saveRule = (content: string) =>
    call(server.url, `/api/ui/rules/${fileId}`, { method: 'PUT', rawBody: content, cookie });
  const catchUps = async () =>
    (await call<{ events: EventRecord[] }>(server.url, '/api/events?kind=catchup', { token: API_TOKEN })).body.events;

  it('refuses to switch while a job still writes to the current dms, and saves nothing', async () => {
    const hold = a.faults.inject({ route: 'POST /api/documents/{id}/notes/', kind: 'hold', times: 1 });
    const job = await call(server.url, '/api/run?rule_id=note-it&dry_run=false', { method: 'POST', token: API_TOKEN });
    assert.equal(job.status, 200, JSON.stringify(job.body));
    while ((a.faults.list().find((f) => f.id === hold.id)?.hits ?? 1) === 0) await new Promise((r) => setTimeout(r, 5));
    const refused = await settings({ dms_url: b.url, dms_token: b.token });
    assert.equal(refused.status, 409);
    // The job records its notes' intents as it goes: one or more wait while the first is held.
    assert.match(
      String(refused.body.error),
      /work on the current dms is under way \(1 job, \d+ notes? not yet added\)/,
    );
    assert.match(fs.readFileSync(path.join(server.dataDir, 'config.yml'), 'utf8'), new RegExp(`dms_url: ${a.url}`));
    assert.equal((await health()).url, a.url);
    a.faults.release(hold.id);
    assert.equal((await waitForEvent(server.url, Number(job.body.event_id))).status, 'done');
  });

  it('lets a run in flight on the first dms finish there before it switches, then switches back', async () => {
    const title = a.store.getDocument(5)!.title;
    const hold = a.faults.inject({ route: 'PATCH /api/documents/{id}/', kind: 'hold', times: 1 });
    const running = run(5);
    while ((a.faults.list().find((f) => f.id === hold.id)?.hits ?? 1) === 0) await new Promise((r) => setTimeout(r, 5));
    const switching = settings({ dms_url: b.url, dms_token: b.token });
    for (
      let i = 0;
      i < 2000 && !server.logs.some((l) => l.includes('dms switch: waiting for the runs of 1 document'));
      i++
    )
      await new Promise((r) => setTimeout(r, 10));
    assert.equal((await health()).url, a.url, 'not switched while the run holds its document');
    a.faults.release(hold.id);
    assert.equal((await running).status, 200);
    const switched = await switching;
    assert.equal(switched.status, 200, JSON.stringify(switched.body));
    assert.equal(switched.body.dms_switched, true);
    assert.equal(a.store.getDocument(5)!.title, `${title}!`, 'the run wrote the first dms');
    assert.equal((await settings({ dms_url: a.url, dms_token: a.token })).body.dms_switched, true);
  });

  it('switches client, health, vocabulary and runs to the second dms', async () => {
    const titleA = a.store.getDocument(3)!.title;
    const titleB = b.store.getDocument(3)!.title;
    assert.equal((await run(3)).status, 200);
    assert.equal(a.store.getDocument(3)!.title, `${titleA}!`, 'the first dms is written while it is in use');
    await createTag(b, 'Nur-in-B');
    fileId = String(
      (await call(server.url, '/api/ui/rules', { method: 'POST', body: { filename: 'tags.yml' }, cookie })).body.id,
    );
    assert.equal((await saveRule(NAMES_TAG('Nur-in-B'))).status, 422, 'the first dms has no such tag');

    const res = await settings({ dms_url: b.url, dms_token: b.token });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.dms_switched, res.body.restart_required], [true, false]);

    const dms = await health();
    assert.deepEqual([dms.url, dms.reachable], [b.url, true]);
    const config = (await call(server.url, '/api/ui/config', { cookie })).body;
    assert.deepEqual([config.dms_url, config.demo], [b.url, false]);
    assert.equal((await saveRule(NAMES_TAG('Nur-in-B'))).status, 200, "names are checked against the second dms's");

    assert.equal((await run(3)).status, 200);
    assert.equal(b.store.getDocument(3)!.title, `${titleB}!`, 'runs now go to the second dms');
    assert.equal(a.store.getDocument(3)!.title, `${titleA}!`, 'and no longer to the first');
  });

  it('keeps a catch-up cursor per dms: back on the first, what changed there meanwhile runs', async () => {
    const dir = server.dataDir;
    assert.ok(fs.existsSync(path.join(dir, cursorFileName(a.url))), 'the first dms keeps its cursor');
    assert.ok(fs.existsSync(path.join(dir, cursorFileName(b.url))), 'the second dms has its own');
    const before = (await catchUps()).length;

    // While the service uses the second dms, a document arrives in the first.
    const added = a.addDocument({ title: 'Neu in A', content: 'Lieferschein' });
    const res = await settings({ dms_url: a.url, dms_token: a.token });
    assert.equal(res.body.dms_switched, true);
    let found: EventRecord | undefined;
    for (let i = 0; i < 200 && !found; i++) {
      found = (await catchUps()).length > before ? (await catchUps())[0] : undefined;
      if (!found) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.ok(found, 'switching back starts a catch-up of the first dms from its own cursor');
    const done = await waitForEvent(server.url, found.event_id);
    assert.equal(done.catchup?.added, 1, JSON.stringify(done.catchup));
    assert.equal(a.store.getDocument(added.id)!.title, 'Neu in A!');
  });

  it('switches to the demo dms, and the header and banner data say so', async () => {
    const res = await settings({ dms_url: null });
    assert.equal(res.body.dms_switched, true);
    const config = (await call(server.url, '/api/ui/config', { cookie })).body;
    assert.equal(config.demo, true);
    assert.notEqual(config.dms_url, a.url);
    assert.equal((await health()).reachable, true);
  });
});
