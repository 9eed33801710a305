import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
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

/** Size of the newest trace history file, 0 while there is none. */
function newestTraceFileSize(dataDir: string): number {
  const dir = path.join(dataDir, 'traces');
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => /^traces-\d+\.json$/.test(f)) : [];
  const newest = files.sort().at(-1);
  return newest ? fs.statSync(path.join(dir, newest)).size : 0;
}

// The three crashes share one data dir and chain their processes: the service restarted after one kill -9 is
// checked, then carries the next workload to its own kill -9. Each child boot costs a whole import of the
// service, so four boots serve three crash-and-restart cases instead of six.
describe('kill -9 and restart', () => {
  let sim: Simulator;
  let dirs: Record<string, string>;
  let server: ChildServer | undefined;
  const running = async () => (server ??= await startChildServer(dirs));

  before(async () => {
    sim = await startSimulator({ seedDocuments: true, generate: { count: 2000, seed: 3 } });
    dirs = { SVC_DATA_DIR: tempDir(), SVC_RULES_DIR: tempDir(), SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token };
    fs.writeFileSync(
      path.join(dirs.SVC_RULES_DIR, 'slow.yml'),
      'rules:\n  - id: slow-scan\n    when:\n      content: { matches: "(?i)rechnung" }\n    actions:\n      - add_tags: [Steuer]\n',
    );
  });
  after(async () => {
    await server?.kill();
    await sim.close();
  });

  /** kill -9 of the running service, then a fresh one on the same dirs. */
  const crashAndRestart = async (): Promise<ChildServer> => {
    await server?.kill('SIGKILL');
    server = undefined;
    return running();
  };

  test('during trace writes: the history is readable after the restart and keeps what was flushed', async () => {
    const first = await running();
    let runs = 0;
    let stop = false;
    const runners = Array.from({ length: 3 }, async () => {
      while (!stop) {
        try {
          const res = await call(first.url, '/api/run?document=1', { method: 'POST', token: API_TOKEN });
          assert.equal(res.status, 200, JSON.stringify(res.body));
          runs++;
        } catch (err) {
          if (!stop) throw err;
        }
      }
    });
    while (runs < 30) await sleep(20);
    // Killed with runs still going, once a batch of traces is on disk and a later one has been written over it.
    const flushed = () => newestTraceFileSize(dirs.SVC_DATA_DIR);
    while (flushed() === 0) await sleep(20);
    const firstFlush = flushed();
    while (flushed() === firstFlush) await sleep(20);
    stop = true;
    await first.kill('SIGKILL');
    await Promise.allSettled(runners);

    const restarted = await crashAndRestart();
    const traces = await call<{ traces: Array<{ document: number }> }>(restarted.url, '/api/traces?limit=1000', {
      token: API_TOKEN,
    });
    assert.equal(traces.status, 200);
    assert.ok(traces.body.traces.length > 0, 'traces flushed before the crash survive it');
    assert.ok(traces.body.traces.every((t) => t.document === 1));
    assert.doesNotMatch(restarted.output(), /corrupt/i, 'the history file was not damaged by the crash');
  });

  test('during rule saves: the file on disk is one complete version, never half of one', async () => {
    const versions = [bigRuleFile('alpha'), bigRuleFile('beta')];
    const first = await running();
    const cookie = await login(first.url);
    const created = await call<{ id: string }>(first.url, '/api/ui/rules', {
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
          const res = await call(first.url, `/api/ui/rules/${id}`, {
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
    // Killed while the writers keep saving: after some saves have landed, and more are on their way.
    while (saves < 6) await sleep(20);
    await first.kill('SIGKILL');
    stop = true;
    await Promise.all(writers);

    const onDisk = fs.readFileSync(path.join(dirs.SVC_RULES_DIR, 'crash.yml'), 'utf8');
    assert.ok(versions.includes(onDisk), `crash.yml holds ${onDisk.length} bytes that match neither saved version`);

    const restarted = await crashAndRestart();
    const cookie2 = await login(restarted.url);
    const listed = await call<{ files: Array<{ name: string; error?: unknown }>; loaded: Record<string, unknown> }>(
      restarted.url,
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
  });

  test('during a job: the job is marked interrupted after the restart, never lost', async () => {
    sim.faults.inject({ route: 'GET /api/documents/', kind: 'latency', ms: 400 });
    const first = await running();
    const started = await call<{ event_id: number }>(first.url, '/api/run?rule_id=slow-scan&dry_run=true', {
      method: 'POST',
      token: API_TOKEN,
    });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const id = started.body.event_id;
    // Until the job is running and has processed a document (polled: no fixed wait decides it).
    for (;;) {
      const event = await call<{ status: string; processed: number }>(first.url, `/api/events/${id}`, {
        token: API_TOKEN,
      });
      assert.ok(
        ['queued', 'running'].includes(event.body.status),
        `the job ended before the kill: ${event.body.status}`,
      );
      if (event.body.status === 'running' && event.body.processed > 0) break;
      await sleep(50);
    }

    const restarted = await crashAndRestart();
    const after = await call<{ status: string; error: string | null }>(restarted.url, `/api/events/${id}`, {
      token: API_TOKEN,
    });
    assert.equal(after.status, 200);
    assert.equal(after.body.status, 'interrupted');
    assert.match(String(after.body.error), /stopped/i);
  });
});
