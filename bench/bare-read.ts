// The physical limit of a run-all, in its own process like the service: page through every document
// (`GET /api/documents/?page_size=<size>` until `next` is null) and parse each page, nothing else. With `parallel`
// above 1, as many requests at once as a dms with that many web workers serves: the count is read first, off the
// clock (the least a client could know beforehand), then pages of `size` documents (ordering=id), each of `parallel`
// loops asking for the next page as soon as its last one is parsed.
// Usage: node --import tsx bench/bare-read.ts <dms url> <token> [page size, default 1000] [parallel, default 1];
// prints {"seconds", "documents", "requests"}.
const [base, token, sizeRaw, parallelRaw] = process.argv.slice(2);
const pageSize = Number(sizeRaw ?? 1000);
const parallel = Number(parallelRaw ?? 1);
const headers = { authorization: `Token ${token}`, accept: 'application/json; version=10' };

async function page(url: string): Promise<{ next: string | null; count: number; results: unknown[] }> {
  const res = await fetch(url, { headers });
  if (!res.ok) throw new Error(`${res.status} from ${url}`);
  return (await res.json()) as { next: string | null; count: number; results: unknown[] };
}

let documents = 0;
let requests = 0;
let started: bigint;
if (parallel > 1) {
  const { count } = await page(`${base}/api/documents/?page_size=1&fields=id`);
  const pages = Math.ceil(count / pageSize);
  let nextPage = 1;
  started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let p = nextPage++; p <= pages; p = nextPage++) {
        const body = await page(`${base}/api/documents/?ordering=id&page_size=${pageSize}&page=${p}`);
        requests++;
        documents += body.results.length;
      }
    }),
  );
} else {
  started = process.hrtime.bigint();
  for (let next: string | null = `${base}/api/documents/?page_size=${pageSize}`; next;) {
    const body = await page(next);
    requests++;
    documents += body.results.length;
    next = body.next;
  }
}
process.stdout.write(JSON.stringify({ seconds: Number(process.hrtime.bigint() - started) / 1e9, documents, requests }));
