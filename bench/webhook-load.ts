// A second process that posts Paperless-style webhooks at a fixed rate to 127.0.0.1 and prints one JSON
// line of figures. Bounded in count and time; it stops by itself.
import { percentile } from './stats.js';

const [url, token, rateRaw, secondsRaw, idsRaw] = process.argv.slice(2);
const rate = Number(rateRaw);
const seconds = Number(secondsRaw);
const ids = idsRaw.split(',').map(Number);
if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(url)) throw new Error('webhook-load only targets http://127.0.0.1:<port>');

const latencies: number[] = [];
const bodyMs: number[] = [];
const saveMs: number[] = [];
const statuses: Record<string, number> = {};
const eventIds = new Set<number>();
const total = Math.min(rate * seconds, 20_000);
// Warm the client (its first requests pay for connections and compilation, not the service's answer).
for (let i = 0; i < 20; i++) await (await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(30_000) })).text();
const started = Date.now();
const pending: Promise<void>[] = [];

for (let i = 0; i < total; i++) {
  const due = started + (i * 1000) / rate;
  const wait = due - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  const doc = ids[i % ids.length];
  pending.push(
    (async () => {
      const t0 = performance.now();
      try {
        const res = await fetch(`${url}/api/webhook/dms`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            event: 'document_updated',
            doc_id: String(doc),
            doc_url: `http://paperless.lan:8000/documents/${doc}/`,
          }),
          // Generous: on an overloaded machine a slow answer is a figure, not a failure.
          signal: AbortSignal.timeout(30_000),
        });
        const body = (await res.json()) as { event_id?: number };
        latencies.push(performance.now() - t0);
        const marks = /body;dur=([\d.]+), save;dur=([\d.]+)/.exec(res.headers.get('server-timing') ?? '');
        if (marks) {
          bodyMs.push(Number(marks[1]));
          saveMs.push(Number(marks[2]));
        }
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status === 202 && typeof body.event_id === 'number') eventIds.add(body.event_id);
      } catch {
        statuses.failed = (statuses.failed ?? 0) + 1;
      }
    })(),
  );
}
await Promise.all(pending);
process.stdout.write(
  `${JSON.stringify({ sent: total, seconds: (Date.now() - started) / 1000, statuses, p50: percentile(latencies, 50), p99: percentile(latencies, 99), latencies, bodyMs, saveMs, eventIds: [...eventIds] })}\n`,
);
