import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { startSimulator } from '../../tools/paperless-sim/simulator.js';
import { startChildServer } from '../helpers/child-server.js';
import { API_TOKEN, call, login, tempDir } from '../helpers/test-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A valid rule file of about 40 KB whose every rule id starts with `prefix`. */
function bigRuleFile(prefix: string): string {
  const rules = Array.from(
    { length: 150 },
    (_, i) =>
      `  - id: ${prefix}-${i}\n    description: ${'x'.repeat(200)}\n    when:\n      title: { contains: "${prefix} ${i}" }\n    actions:\n      - set_title: "${prefix} {{ doc.title }}"\n`,
  );
  return `rules:\n${rules.join('')}`;
}

describe('kill -9 and restart', () => {
  test('during rule saves: the file on disk is one complete version, never half of one', async () => {
    const dirs = { SVC_DATA_DIR: tempDir(), SVC_RULES_DIR: tempDir() };
    const versions = [bigRuleFile('alpha'), bigRuleFile('beta')];
    let server = await startChildServer(dirs);
    const cookie = await login(server.url);
    const created = await call<{ id: string }>(server.url, '/api/ui/rules', {
      body: { filename: 'crash.yml' },
      cookie,
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const id = created.body.id;

    let saves = 0;
    let stop = false;
    const writers = Array.from({ length: 3 }, async (_, w) => {
      for (let i = 0; !stop; i++) {
        try {
          const res = await call(server.url, `/api/ui/rules/${id}`, {
            method: 'PUT',
            rawBody: versions[(i + w) % 2],
            cookie,
          });
          if (res.status === 200) saves++;
        } catch {
          return; // the server died under us: expected
        }
      }
    });
    while (saves < 3) await sleep(20);
    await sleep(150);
    await server.kill('SIGKILL');
    stop = true;
    await Promise.all(writers);

    const onDisk = fs.readFileSync(path.join(dirs.SVC_RULES_DIR, 'crash.yml'), 'utf8');
    assert.ok(versions.includes(onDisk), `crash.yml holds ${onDisk.length} bytes that match neither saved version`);

    server = await startChildServer(dirs);
    try {
      const cookie2 = await login(server.url);
      const listed = await call<{ files: Array<{ name: string; error?: unknown }>; loaded: Record<string, unknown> }>(
        server.url,
        '/api/ui/rules',
        { cookie: cookie2 },
      );
      assert.equal(listed.status, 200);
      const crash = listed.body.files.find((f) => f.name === 'crash.yml');
      assert.ok(crash && !crash.error, 'the file loads after the restart');
      assert.ok(
        !listed.body.files.some((f) => /tmp|~$/.test(f.name)),
        `no temp file is listed: ${listed.body.files.map((f) => f.name).join(', ')}`,
      );
      assert.equal(Object.keys(listed.body.loaded).filter((k) => /^(alpha|beta)-/.test(k)).length, 150);
    } finally {
      await server.kill();
    }
  });

  test('during trace writes: the history is readable after the restart and keeps what was flushed', async () => {
    const dirs = { SVC_DATA_DIR: tempDir(), SVC_RULES_DIR: tempDir() };
    let server = await startChildServer(dirs);
    let runs = 0;
    let stop = false;
    const runners = Array.from({ length: 3 }, async () => {
      while (!stop) {
        try {
          const res = await call(server.url, '/api/run?document=1', { method: 'POST', token: API_TOKEN });
          assert.equal(res.status, 200, JSON.stringify(res.body));
          runs++;
        } catch (err) {
          if (!stop) throw err;
        }
      }
    });
    while (runs < 30) await sleep(20);
    await sleep(600); // past at least one batched flush
    stop = true;
    await server.kill('SIGKILL');
    await Promise.allSettled(runners);

    server = await startChildServer(dirs);
    try {
      const traces = await call<{ traces: Array<{ document: number }> }>(server.url, '/api/traces?limit=1000', {
        token: API_TOKEN,
      });
      assert.equal(traces.status, 200);
      assert.ok(traces.body.traces.length > 0, 'traces flushed before the crash survive it');
      assert.ok(traces.body.traces.every((t) => t.document === 1));
      assert.doesNotMatch(server.output(), /corrupt/i, 'the history file was not damaged by the crash');
    } finally {
      await server.kill();
    }
  });

  test('during a job: the job is marked interrupted after the restart, never lost', async () => {
    const sim = await startSimulator({ seedDocuments: true, generate: { count: 2000, seed: 3 } });
    sim.faults.inject({ route: 'GET /api/documents/', kind: 'latency', ms: 400 });
    const dirs = { SVC_DATA_DIR: tempDir(), SVC_RULES_DIR: tempDir(), SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token };
    fs.writeFileSync(
      path.join(dirs.SVC_RULES_DIR, 'slow.yml'),
      'rules:\n  - id: slow-scan\n    when:\n      content: { matches: "(?i)rechnung" }\n    actions:\n      - add_tags: [Steuer]\n',
    );
    let server = await startChildServer(dirs);
    try {
      const started = await call<{ event_id: number }>(server.url, '/api/run?rule_id=slow-scan&dry_run=true', {
        method: 'POST',
        token: API_TOKEN,
      });
      assert.equal(started.status, 200, JSON.stringify(started.body));
      const id = started.body.event_id;
      for (let i = 0; i < 100; i++) {
        const event = await call<{ status: string; processed: number }>(server.url, `/api/events/${id}`, {
          token: API_TOKEN,
        });
        if (event.body.status === 'running' && event.body.processed > 0) break;
        await sleep(100);
      }
      await server.kill('SIGKILL');

      server = await startChildServer(dirs);
      const after = await call<{ status: string; error: string | null }>(server.url, `/api/events/${id}`, {
        token: API_TOKEN,
      });
      assert.equal(after.status, 200);
      assert.equal(after.body.status, 'interrupted');
      assert.match(String(after.body.error), /stopped/i);
    } finally {
      await server.kill();
      await sim.close();
    }
  });
});
