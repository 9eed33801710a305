import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { Trace } from '../../server/engine/model.js';
import { API_TOKEN, call, login, startTestServer, tempDir, type TestServer } from '../helpers/test-server.js';
import { makeTrace } from '../helpers/trace-factory.js';

const trace = makeTrace;

interface TracesBody {
  traces: Trace[];
  error?: string;
}

const servers: TestServer[] = [];

async function start(env: Record<string, string> = {}, dataDir?: string): Promise<TestServer> {
  const server = await startTestServer(env, dataDir ? { dataDir } : {});
  servers.push(server);
  return server;
}

describe('GET /api/traces', () => {
  after(async () => {
    for (const s of servers) await s.close();
  });

  it('refuses a request with neither session nor token', async () => {
    const server = await start();
    const res = await call(server.url, '/api/traces');
    assert.equal(res.status, 401);
    assert.equal(res.body.ok, false);
    const wrong = await call(server.url, '/api/traces', { token: 'not-the-token' });
    assert.equal(wrong.status, 401);
  });

  it('answers a session or the bearer token with the newest traces first', async () => {
    const server = await start();
    const written = [trace(), trace(), trace()];
    server.services.history.append(written);
    const byToken = await call<TracesBody>(server.url, '/api/traces', { token: API_TOKEN });
    assert.equal(byToken.status, 200);
    assert.deepEqual(
      byToken.body.traces.map((t) => t.id),
      written.map((t) => t.id).reverse(),
    );
    const cookie = await login(server.url);
    const bySession = await call<TracesBody>(server.url, '/api/traces?limit=2', { cookie });
    assert.deepEqual(
      bySession.body.traces.map((t) => t.id),
      [written[2].id, written[1].id],
    );
  });

  it('defaults to 100 traces and clamps the limit to 1000', async () => {
    const server = await start();
    server.services.history.append(Array.from({ length: 1005 }, () => trace()));
    const plain = await call<TracesBody>(server.url, '/api/traces', { token: API_TOKEN });
    assert.equal(plain.body.traces.length, 100);
    const huge = await call<TracesBody>(server.url, '/api/traces?limit=100000', { token: API_TOKEN });
    assert.equal(huge.status, 200);
    assert.equal(huge.body.traces.length, 1000);
  });

  it('filters by document, rule, event and status', async () => {
    const server = await start();
    const a = trace({ document: 5, rule_id: 'x', status: 'matched', event_id: 3, source: 'job' });
    const b = trace({ document: 5, rule_id: 'y', status: 'not_matched' });
    const c = trace({ document: 6, rule_id: 'x', status: 'error', error: 'boom' });
    server.services.history.append([a, b, c]);
    const ids = async (q: string) =>
      (await call<TracesBody>(server.url, `/api/traces?${q}`, { token: API_TOKEN })).body.traces.map((t) => t.id);
    assert.deepEqual(await ids('document=5'), [b.id, a.id]);
    assert.deepEqual(await ids('rule_id=x'), [c.id, a.id]);
    assert.deepEqual(await ids('event_id=3'), [a.id]);
    assert.deepEqual(await ids('status=error'), [c.id]);
    assert.deepEqual(await ids('document=5&rule_id=x'), [a.id]);
  });

  it('answers 400 naming the bad parameter', async () => {
    const server = await start();
    for (const [query, name] of [
      ['limit=0', 'limit'],
      ['limit=abc', 'limit'],
      ['document=-1', 'document'],
      ['status=weird', 'status'],
      ['event_id=1.5', 'event_id'],
    ]) {
      const res = await call(server.url, `/api/traces?${query}`, { token: API_TOKEN });
      assert.equal(res.status, 400, query);
      assert.match(String(res.body.error), new RegExp(name));
    }
  });

  it('keeps the history across a restart and drops the oldest beyond SVC_TRACE_RETENTION', async () => {
    const dataDir = tempDir('dms-rules-data-');
    const first = await start({ SVC_TRACE_RETENTION: '100' }, dataDir);
    const written = Array.from({ length: 130 }, () => trace());
    first.services.history.append(written);
    await first.close();

    const second = await start({ SVC_TRACE_RETENTION: '100' }, dataDir);
    const res = await call<TracesBody>(second.url, '/api/traces?limit=1000', { token: API_TOKEN });
    assert.equal(res.body.traces.length, 100);
    assert.deepEqual(
      res.body.traces.map((t) => t.id),
      written
        .slice(30)
        .map((t) => t.id)
        .reverse(),
    );
  });

  it('a history file torn mid-trace keeps every intact trace queryable after the restart', async () => {
    const dataDir = tempDir('dms-rules-data-');
    const first = await start({}, dataDir);
    const written = Array.from({ length: 40 }, (_, i) => trace({ document: i + 1 }));
    first.services.history.append(written);
    await first.close();
    const file = path.join(dataDir, 'traces', 'traces-000001.json');
    const bytes = fs.readFileSync(file);
    fs.truncateSync(file, bytes.indexOf(`"id":"${written[33].id}"`) + 20);

    const second = await start({}, dataDir);
    const res = await call<TracesBody>(second.url, '/api/traces?limit=1000', { token: API_TOKEN });
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.traces.map((t) => t.id),
      written
        .slice(0, 33)
        .map((t) => t.id)
        .reverse(),
    );
    const byDocument = await call<TracesBody>(second.url, '/api/traces?document=33', { token: API_TOKEN });
    assert.deepEqual(
      byDocument.body.traces.map((t) => t.id),
      [written[32].id],
    );
    assert.ok(
      second.logs.some((l) => l.includes('33 traces kept, 1 unreadable part moved aside to')),
      second.logs.join('\n'),
    );
  });

  it('starts with a fresh history when the history file is corrupt, keeping the bad file aside', async () => {
    const dataDir = tempDir('dms-rules-data-');
    fs.mkdirSync(path.join(dataDir, 'traces'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'traces', 'traces-000001.json'), 'not json at all');
    const server = await start({}, dataDir);
    assert.ok(
      server.logs.some((l) => l.includes('moved it to')),
      server.logs.join('\n'),
    );
    assert.ok(fs.readdirSync(path.join(dataDir, 'traces')).some((f) => f.includes('.corrupt-')));
    const res = await call<TracesBody>(server.url, '/api/traces', { token: API_TOKEN });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.traces, []);
  });
});
