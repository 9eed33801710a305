import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Trace } from '../../server/engine/model.js';
import type { EventRecord } from '../../server/history/event-types.js';
import { fileIdOf } from '../../server/rules/rules.js';
import { API_TOKEN, ADMIN, call, login, startTestServer } from '../helpers/test-server.js';
import { startJob, startRig, waitForEvent, type Rig } from './support/jobs-kit.js';

const PUBLISHED = `rules:
  - id: telekom-tax
    when:
      correspondent: Telekom Deutschland GmbH
    actions:
      - add_tags: [Steuer]
`;
const EDITED = `rules:
  - id: telekom-tax
    when:
      content: { matches: '(?i)rechnung' }
    actions:
      - set_title: "edited text ran"
    tests:
      - document: { content: "Rechnung" }
        expect: { matched: true }
      - document: { content: "Mahnung" }
        expect: { matched: true }
`;
const FILE = fileIdOf('test-rules.yml');

/** A POST with a Host header of our choosing (fetch always sends the real one), as a rebinding page's request arrives. */
function postWithHost(base: string, route: string, host: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      new URL(route, base),
      { method: 'POST', headers: { host, 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('the edit → try loop, event links and first start', () => {
  let rig: Rig;
  let cookie: string;
  before(async () => {
    rig = await startRig(PUBLISHED);
    cookie = await login(rig.server.url);
  });
  after(async () => rig?.close());

  it('dry-runs posted rule-file text against a document without publishing it or writing to the dms', async () => {
    const res = await call<{ traces: Trace[]; dry_run: boolean }>(
      rig.server.url,
      `/api/ui/rules/${FILE}/dry-run?document=2&rule_id=telekom-tax`,
      {
        rawBody: EDITED,
        cookie,
      },
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.dry_run, true);
    const [trace] = res.body.traces;
    assert.equal(trace.status, 'matched');
    assert.deepEqual(trace.changes.title?.to, 'edited text ran');
    const condition = trace.conditions.find((c) => c.operator === 'matches')!;
    assert.match(String(condition.actual), /Rechnung/i, 'the text around the match');
    assert.equal(rig.sim.store.getDocument(2)!.title.includes('edited text ran'), false);
    const stored = await call<{ content: string }>(rig.server.url, `/api/ui/rules/${FILE}`, { cookie });
    assert.equal(stored.body.content, PUBLISHED, 'nothing was published');
  });

  it('refuses a dry run of text that does not validate, naming its line', async () => {
    const res = await call(rig.server.url, `/api/ui/rules/${FILE}/dry-run?document=2`, {
      rawBody: 'rules:\n  - id: x\n    actions:\n      - add_tag: [a]\n',
      cookie,
    });
    assert.equal(res.status, 422);
    assert.equal(typeof res.body.line, 'number');
  });

  it("checks posted text and reports every test's outcome at its line", async () => {
    const res = await call<{
      validation: { ok: boolean; line?: number };
      tests: Array<{ name: string; ok: boolean; line: number }>;
    }>(rig.server.url, `/api/ui/rules/${FILE}/check`, { rawBody: EDITED, cookie });
    assert.equal(res.status, 200);
    assert.equal(res.body.validation.ok, false, 'a failing test fails validation');
    assert.deepEqual(
      res.body.tests.map((t) => t.ok),
      [true, false],
    );
    assert.equal(
      res.body.tests[1].line,
      EDITED.split('\n').findIndex((l) => l.includes('Mahnung')) + 1 + 1,
      'the failing expectation line',
    );
  });

  it('links a dry run to the job that applied it, and a job to the undo, and refuses a second apply', async () => {
    const dry = await startJob(rig.server.url, 'rule_id=telekom-tax&dry_run=true');
    await waitForEvent(rig.server.url, dry.body.event_id as number);
    const applied = await call<{ event_id: number }>(
      rig.server.url,
      `/api/events/${dry.body.event_id as number}/apply`,
      { method: 'POST', token: API_TOKEN },
    );
    assert.equal(applied.status, 202, JSON.stringify(applied.body));
    const real = await waitForEvent(rig.server.url, applied.body.event_id);
    assert.equal(real.applied_from, dry.body.event_id);
    assert.equal(real.dry_run, false);
    const again = await call(rig.server.url, `/api/events/${dry.body.event_id as number}/apply`, {
      method: 'POST',
      token: API_TOKEN,
    });
    assert.equal(again.status, 409);
    const dryNow = await call<EventRecord>(rig.server.url, `/api/events/${dry.body.event_id as number}`, {
      token: API_TOKEN,
    });
    assert.equal(dryNow.body.applied_as, real.event_id);

    const undo = await call<{ event_id: number }>(rig.server.url, `/api/events/${real.event_id}/revert`, {
      method: 'POST',
      token: API_TOKEN,
    });
    await waitForEvent(rig.server.url, undo.body.event_id);
    const realNow = await call<EventRecord>(rig.server.url, `/api/events/${real.event_id}`, { token: API_TOKEN });
    assert.equal(realNow.body.undone_by, undo.body.event_id);
    const twice = await call(rig.server.url, `/api/events/${real.event_id}/revert`, {
      method: 'POST',
      token: API_TOKEN,
    });
    assert.equal(twice.status, 409);
  });

  it('filters traces by a rule id prefix and by a list of documents', async () => {
    const res = await call<{ traces: Trace[] }>(rig.server.url, '/api/traces?rule_prefix=telekom&documents=2,3', {
      token: API_TOKEN,
    });
    assert.equal(res.status, 200);
    assert.ok(res.body.traces.length > 0);
    assert.ok(res.body.traces.every((t) => t.rule_id.startsWith('telekom') && [2, 3].includes(t.document)));
    const bad = await call(rig.server.url, '/api/traces?documents=2,x', { token: API_TOKEN });
    assert.equal(bad.status, 400);
  });

  it('tests a dms connection before saving: reachable, version and what the token sees; a wrong token says so', async () => {
    const ok = await call(rig.server.url, '/api/ui/settings/test-dms', {
      body: { url: rig.sim.url, token: rig.sim.token },
      cookie,
    });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.ok, true);
    assert.equal(typeof ok.body.version, 'string');
    assert.ok((ok.body.visible as { tags: number }).tags > 0);
    // Which way the service would tell its own changes from a person's: the audit log, or the state and why.
    const attribution = ok.body.attribution as { mode: string; user: string | null; note: string };
    assert.equal(attribution.mode, 'audit-log');
    assert.equal(attribution.user, 'anna');
    rig.sim.setAuditLog(false);
    try {
      const off = await call(rig.server.url, '/api/ui/settings/test-dms', {
        body: { url: rig.sim.url, token: rig.sim.token },
        cookie,
      });
      const fallback = off.body.attribution as { mode: string; note: string };
      assert.equal(fallback.mode, 'state');
      assert.match(fallback.note, /audit log is switched off/);
    } finally {
      rig.sim.setAuditLog(true);
    }
    const wrong = await call(rig.server.url, '/api/ui/settings/test-dms', {
      body: { url: rig.sim.url, token: 'wrong' },
      cookie,
    });
    assert.equal(wrong.body.ok, false);
    assert.match(String(wrong.body.error), /401|token|auth/i);
  });
});

describe('first start: creating the admin account with the setup code', () => {
  it('refuses a rebound name and a request without the code, then stores a hash for the code from the data dir', async () => {
    const server = await startTestServer({
      SVC_ADMIN_USER: '',
      SVC_ADMIN_PASSWORD: '',
      SVC_ALLOWED_HOSTS: 'rules.lan',
    });
    try {
      const state = await call(server.url, '/api/setup');
      assert.deepEqual(state.body, { needed: true, allowed: true });
      // What a person at the machine reads: the file in the data dir.
      const code = fs.readFileSync(path.join(server.dataDir, 'setup-code'), 'utf8').trim();
      // A rebound name never gets past the Host allow-list; without the code, no address is enough.
      assert.equal(
        await postWithHost(server.url, '/api/setup', 'evil.example:8484', {
          code,
          username: 'boss',
          password: 'long enough pw',
        }),
        421,
      );
      const noCode = await call(server.url, '/api/setup', { body: { username: 'boss', password: 'long enough pw' } });
      assert.equal(noCode.status, 403);
      assert.match(String(noCode.body.error), /setup-code.*data directory/);
      const created = await call(server.url, '/api/setup', {
        body: { code, username: 'boss', password: 'long enough pw' },
      });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.match(created.headers.get('set-cookie') ?? '', /svc_session=/);
      const config = fs.readFileSync(`${server.dataDir}/config.yml`, 'utf8');
      assert.match(config, /admin_password_hash: .*scrypt/);
      assert.doesNotMatch(config, /long enough pw/);
      assert.equal(fs.existsSync(path.join(server.dataDir, 'setup-code')), false, 'the code is spent');
      const second = await call(server.url, '/api/setup', {
        body: { code, username: 'other', password: 'long enough pw' },
      });
      assert.equal(second.status, 409);
      assert.equal((await call(server.url, '/api/setup')).body.needed, false);
      await login(server.url, { username: 'boss', password: 'long enough pw' });
    } finally {
      await server.close();
    }
  });

  it('is not needed when an admin is configured', async () => {
    const server = await startTestServer();
    try {
      assert.deepEqual((await call(server.url, '/api/setup')).body, { needed: false, allowed: false });
      const res = await call(server.url, '/api/setup', { body: ADMIN });
      assert.equal(res.status, 409);
    } finally {
      await server.close();
    }
  });
});
