// The physical limit of a run-all, in its own process like the service: page through every document
// (`GET /api/documents/?page_size=<size>` until `next` is null) and parse each page, nothing else.
// Usage: node --import tsx bench/bare-read.ts <dms url> <token> [page size, default 1000];
// prints {"seconds", "documents", "requests"}.
const [base, token, sizeRaw] = process.argv.slice(2);
const pageSize = Number(sizeRaw ?? 1000);
const started = process.hrtime.bigint();
let documents = 0;
let requests = 0;
for (let next: string | null = `${base}/api/documents/?page_size=${pageSize}`; next;) {
  const res = await fetch(next, {
    headers: { authorization: `Token ${token}`, accept: 'application/json; version=10' },
  });
  if (!res.ok) throw new Error(`${res.status} from ${next}`);
  const body = (await res.json()) as { next: string | null; results: unknown[] };
  requests++;
  documents += body.results.length;
  next = body.next;
}
process.stdout.write(JSON.stringify({ seconds: Number(process.hrtime.bigint() - started) / 1e9, documents, requests }));
