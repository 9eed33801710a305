// A second process that posts Paperless-style webhooks at a fixed rate to 127.0.0.1 and prints one JSON
// line of figures. Bounded in count and time; it stops by itself.
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { percentile } from './stats.js';

const [url, token, rateRaw, secondsRaw, idsRaw] = process.argv.slice(2);
const rate = Number(rateRaw);
const seconds = Number(secondsRaw);
const ids = idsRaw.split(',').map(Number);
if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(url)) throw new Error('webhook-load only targets http://127.0.0.1:<port>');
const { hostname, port } = new URL(url);

// node:http with kept-alive connections, not fetch: on two shared cores, undici's fetch in this process cost
// the service CPU and added the client's own milliseconds to every figure (docs/performance.md, "Latency").
const agent = new http.Agent({ keepAlive: true, maxSockets: 64, noDelay: true });
let connections = 0;
const seen = new WeakSet<object>();

function post(
  route: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; text: string; timing: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        hostname,
        port,
        path: route,
        method: 'POST',
        agent,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        // Generous: on an overloaded machine a slow answer is a figure, not a failure.
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            timing: String(res.headers['server-timing'] ?? ''),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('socket', (socket) => {
      if (seen.has(socket)) return;
      seen.add(socket);
      connections++;
    });
    req.on('timeout', () => req.destroy(new Error('no answer in 30 s')));
    req.on('error', reject);
    req.end(body);
  });
}

const latencies: number[] = [];
const lateBy: number[] = [];
const bodyMs: number[] = [];
const saveMs: number[] = [];
const statuses: Record<string, number> = {};
const eventIds = new Set<number>();
const total = Math.min(rate * seconds, 20_000);
// Warm the client and a few connections (the first requests pay for compilation and connecting, not the answer).
for (let i = 0; i < 5; i++) await Promise.all(Array.from({ length: 4 }, () => post('/api/health', '', {})));
connections = 0;
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
loopDelay.enable();
const cpuBefore = process.cpuUsage();
const started = performance.now();
const pending: Promise<void>[] = [];

// Open loop: request i is due at i / rate whatever the earlier answers did. Its latency runs from when it was
// sent; how late the client itself sent it (its timers, its loop) is reported apart, as `lateBy`.
for (let i = 0; i < total; i++) {
  const due = started + (i * 1000) / rate;
  const wait = due - performance.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  const doc = ids[i % ids.length];
  pending.push(
    (async () => {
      const t0 = performance.now();
      lateBy.push(Math.max(0, t0 - due));
      try {
        const res = await post(
          '/api/webhook/dms',
          JSON.stringify({
            event: 'document_updated',
            doc_id: String(doc),
            doc_url: `http://paperless.lan:8000/documents/${doc}/`,
          }),
          { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        );
        latencies.push(performance.now() - t0);
        const marks = /body;dur=([\d.]+), save;dur=([\d.]+)/.exec(res.timing);
        if (marks) {
          bodyMs.push(Number(marks[1]));
          saveMs.push(Number(marks[2]));
        }
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        const eventId = res.status === 202 ? (JSON.parse(res.text) as { event_id?: unknown }).event_id : undefined;
        if (typeof eventId === 'number') eventIds.add(eventId);
      } catch {
        statuses.failed = (statuses.failed ?? 0) + 1;
      }
    })(),
  );
}
await Promise.all(pending);
const cpu = process.cpuUsage(cpuBefore);
agent.destroy();
process.stdout.write(
  `${JSON.stringify({
    sent: total,
    seconds: (performance.now() - started) / 1000,
    statuses,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    latencies,
    lateBy,
    clientLoopDelayP99: loopDelay.percentile(99) / 1e6,
    clientCpuMs: (cpu.user + cpu.system) / 1000,
    connections,
    bodyMs,
    saveMs,
    eventIds: [...eventIds],
  })}\n`,
);
