import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSimulator } from '../tools/paperless-sim/simulator.js';
import { rulesDirWith, tempDir } from './fixtures.js';
import { api, startService } from './service-process.js';
import { percentile, round, type Row } from './stats.js';

const RULES = 'rules:\n  - id: retitle\n    actions:\n      - set_title: "{{ doc.title }}!"\n';
const BIG_ID = 1;
const POLL_EVERY_MS = 10;

/**
 * The simulator behind a pass-through that answers one document with `megabytes` of text from a buffer built
 * beforehand: the bench process only copies bytes while the service reads, so its health poller is not the one
 * stalling (serialising 60 MB in the simulator would block this process, not the service).
 */
async function startBigAnswerDms(simUrl: string, body: Buffer): Promise<{ url: string; close(): Promise<void> }> {
  const target = new URL(simUrl);
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && new URL(req.url ?? '/', 'http://x').pathname === `/api/documents/${BIG_ID}/`) {
      res.writeHead(200, { 'content-type': 'application/json', 'x-api-version': '9', 'x-version': '2.18.4' });
      res.end(body);
      return;
    }
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Sequential GET /api/health, one every POLL_EVERY_MS, until `done` settles (or `count` answers when given). */
async function pollHealth(url: string, until: { done?: Promise<unknown>; count?: number }): Promise<number[]> {
  const times: number[] = [];
  let finished = false;
  void until.done?.finally(() => (finished = true));
  while (!finished && (until.count === undefined || times.length < until.count)) {
    const start = performance.now();
    const res = await fetch(`${url}/api/health`);
    await res.arrayBuffer();
    times.push(performance.now() - start);
    await new Promise((resolve) => setTimeout(resolve, POLL_EVERY_MS));
  }
  return times;
}

/**
 * `/api/health` while the service reads one large dms answer (a dry run of one document whose text is
 * `megabytes` long), against the same poll on the quiet service: ratios, so the machine's own speed cancels out.
 */
export async function benchLargeAnswer(megabytes = 60, runs = 3): Promise<Row[]> {
  const sim = await startSimulator({ seedDocuments: true });
  const read = await fetch(`${sim.url}/api/documents/${BIG_ID}/?full_perms=true`, {
    headers: { authorization: `Token ${sim.token}`, accept: 'application/json; version=9' },
  });
  if (!read.ok) throw new Error(`the simulator did not answer document ${BIG_ID}: ${read.status}`);
  const doc = (await read.json()) as Record<string, unknown>;
  const body = Buffer.from(JSON.stringify({ ...doc, content: 'x'.repeat(megabytes * 1024 * 1024) }));
  const dms = await startBigAnswerDms(sim.url, body);
  const service = await startService(process.cwd(), {
    SVC_DMS_URL: dms.url,
    SVC_DMS_TOKEN: sim.token,
    SVC_RULES_DIR: rulesDirWith({ 'rules.yml': RULES }),
    SVC_DATA_DIR: tempDir('data'),
    SVC_DMS_MAX_ANSWER_MB: String(megabytes * 2),
  });
  try {
    const quiet = await pollHealth(service.url, { count: 300 });
    const during: number[] = [];
    for (let i = 0; i < runs; i++) {
      const run = api(service.url, `/api/run?document=${BIG_ID}&dry_run=true`, { method: 'POST' });
      during.push(...(await pollHealth(service.url, { done: run })));
      const { status, body: answer } = await run;
      if (status !== 200) throw new Error(`the dry run failed: ${status} ${JSON.stringify(answer)}`);
    }
    const ratio = (p: number) => round(percentile(during, p) / percentile(quiet, p), 1);
    const worst = (values: number[]) => Math.max(...values);
    return [
      {
        measure: `health during a ${megabytes} MB document answer / quiet, p50`,
        value: `${ratio(50)} ×`,
        note: `${during.length} polls over ${runs} dry runs, one every ${POLL_EVERY_MS} ms; quiet p50 ${round(percentile(quiet, 50))} ms (300 polls)`,
      },
      {
        measure: '  the same, worst',
        value: `${round(worst(during) / worst(quiet), 1)} ×`,
        note: `worst ${round(worst(during))} ms against the quiet worst ${round(worst(quiet))} ms`,
      },
    ];
  } finally {
    await service.stop();
    await dms.close();
    await sim.close();
  }
}
