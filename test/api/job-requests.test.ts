import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EventRecord } from '../../server/history/event-types.js';
import { SLOW_DMS } from '../../tools/paperless-sim/slow-dms.js';
import { TEST_TIMINGS } from '../helpers/test-server.js';
import { startJob, startRig, waitForEvent, type Rig } from './support/jobs-kit.js';

// What a run-all over 1,000 documents asks of a slow dms: the requests and their order, never their
// time. The vocabulary is read at start and kept while it is fresh, so a job's requests are the document read.

const RULES = `
rules:
  - id: invoices
    description: Tags the invoices (no prefilter, as the benchmark's rule)
    when:
      content: { matches: '(?i)rechnung|invoice' }
    actions:
      - add_tags: [job-requests-invoice]
        create_missing: true
  - id: fresh-name
    description: Adds a tag a person creates after the service started
    when:
      content: { matches: '(?i)rechnung' }
    actions:
      - add_tags: [seit-eben]
  - id: missing-name
    description: Names a tag the dms does not have
    when:
      content: { matches: '(?i)rechnung' }
    actions:
      - add_tags: [gibt-es-nicht]
  - id: by-type
    description: A prefilter by name
    when:
      all:
        - document_type: Rechnung
        - content: { matches: '.' }
`;

const LISTS = ['tags', 'correspondents', 'document_types', 'storage_paths', 'custom_fields'].map((k) => `/api/${k}/`);
const isList = (request: string) => LISTS.some((path) => request.startsWith(`GET ${path}`));
const paramsOf = (request: string) => new URL(request.split(' ')[1], 'http://sim').searchParams;
const isDocumentList = (request: string) => request.startsWith('GET /api/documents/?');
/** The health ping (a one-item page of each list, an empty page of documents) goes out whenever the dms's
 * status is a few seconds old, so on a loaded machine it lands among a job's requests: it is not the job's. */
const isHealthPing = (request: string) =>
  (isList(request) && paramsOf(request).get('page_size') === '1') || paramsOf(request).get('id__in') === '0';

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Distinct documents read back whole by id (`id__in` without `fields`, as the echo ledger reads them). */
const readBack = (requests: string[]) =>
  new Set(requests.map(paramsOf).flatMap((p) => (p.has('fields') ? [] : (p.get('id__in')?.split(',') ?? [])))).size;

async function runJob(rig: Rig, query: string): Promise<{ event: EventRecord; requests: string[] }> {
  rig.sim.resetCounts();
  const res = await startJob(rig.server.url, query);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const event = await waitForEvent(rig.server.url, res.body.event_id as number);
  assert.equal(event.status, 'done', JSON.stringify(event));
  return { event, requests: rig.sim.requests().filter((r) => !isHealthPing(r)) };
}

/**
 * A one-row probe newest first, then plain pages by id, each once: sizes that never grow (full pages, then the
 * read's tail), each page starting at the row where the one before ended, together covering the count.
 */
function assertProbeThenPages(requests: string[], documents: number): void {
  const [probe, ...pages] = requests;
  assert.equal(paramsOf(probe).get('ordering'), '-id', `the first request is the probe: ${probe}`);
  assert.equal(paramsOf(probe).get('page_size'), '1');
  assert.ok(pages.length > 0 && pages.every(isDocumentList), JSON.stringify(pages));
  assert.ok(pages.every((p) => paramsOf(p).get('ordering') === 'id'));
  // By the row each starts at: requests sent together over several connections may arrive in any order.
  const asked = pages
    .map((p) => ({ page: Number(paramsOf(p).get('page')), size: Number(paramsOf(p).get('page_size')) }))
    .sort((a, b) => (a.page - 1) * a.size - (b.page - 1) * b.size);
  let offset = 0;
  for (const [i, { page, size }] of asked.entries()) {
    assert.ok(i === 0 || size <= asked[i - 1].size, `page sizes never grow: ${JSON.stringify(asked)}`);
    assert.equal((page - 1) * size, offset, `page ${page} of ${size} starts where the one before ended`);
    offset += Math.min(size, documents - offset);
  }
  assert.equal(offset, documents, 'every document once, no page beyond the count');
  assert.ok((requests.length / documents) * 1000 <= 20, `${requests.length} requests for ${documents} documents`);
}

describe('what a 1,000-document job asks of a slow dms', () => {
  let rig: Rig;
  let documents: number;
  before(async () => {
    // The vocabulary stays cached for the whole file, however long a loaded machine takes over it.
    const timings = { ...TEST_TIMINGS, vocabularyTtlMs: 60 * 60_000 };
    rig = await startRig(RULES, {}, { generate: { count: 1000, seed: 7 }, slow: SLOW_DMS }, { timings });
    documents = rig.sim.store.documents.size;
    // What the service reads as it starts (the vocabulary, which Paperless user it is) went out before it
    // listened; wait for it to arrive, so that the jobs' requests below are theirs alone.
    await until(() => {
      const arrived = rig.sim.requests();
      return [...LISTS, '/api/ui_settings/'].every((path) => arrived.some((r) => r.startsWith(`GET ${path}`)));
    });
  });
  after(async () => rig?.close());

  it('the first job after start reads no vocabulary: the probe, then the pages', async () => {
    const { event, requests } = await runJob(rig, 'rule_id=invoices');
    assert.equal(event.processed, documents);
    assert.deepEqual(requests.filter(isList), [], 'the vocabulary read at start serves the job');
    assertProbeThenPages(requests, documents);
  });

  it('warm dry, changing real and unchanged real runs: the same read, and the second real run writes nothing', async () => {
    const warm = await runJob(rig, 'rule_id=invoices');
    assertProbeThenPages(warm.requests, documents);
    const changing = await runJob(rig, 'rule_id=invoices&dry_run=false');
    assert.ok(changing.event.changed > 0);
    // The service reads the documents it wrote back after the job (its echo ledger): wait until it has.
    await until(() => readBack(rig.sim.requests()) >= (changing.event.changed ?? 0));
    const unchanged = await runJob(rig, 'rule_id=invoices&dry_run=false');
    assert.equal(unchanged.event.changed, 0);
    assert.deepEqual(
      unchanged.requests.filter((r) => !r.startsWith('GET ')),
      [],
      'no writes',
    );
    assertProbeThenPages(unchanged.requests, documents);
  });

  it('a tag a person created after the vocabulary was read resolves: the job reads the lists again', async () => {
    const created = await fetch(`${rig.sim.url}/api/tags/`, {
      method: 'POST',
      headers: { authorization: `Token ${rig.sim.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'seit-eben', matching_algorithm: 0 }),
    });
    assert.equal(created.status, 201);
    const { event, requests } = await runJob(rig, 'rule_id=fresh-name');
    assert.equal(event.errors, 0, JSON.stringify(event.report));
    assert.ok(event.changed > 0, 'the new tag would be added');
    assert.equal(requests.filter((r) => r.startsWith('GET /api/tags/')).length, 1, 'the lists once, for the miss');
    assertProbeThenPages(requests.filter(isDocumentList), documents);

    const again = await runJob(rig, 'rule_id=fresh-name');
    assert.deepEqual(again.requests.filter(isList), [], 'known now: no second read');
  });

  it('a name the dms does not have costs one read of the lists, not one per job', async () => {
    const first = await runJob(rig, 'rule_id=missing-name');
    assert.ok(first.event.errors > 0, 'the unknown tag is an error in the traces');
    assert.equal(first.requests.filter((r) => r.startsWith('GET /api/tags/')).length, 1);
    const second = await runJob(rig, 'rule_id=missing-name');
    assert.deepEqual(second.requests.filter(isList), [], 'the fresh read did not know it either: not asked again');
  });

  it('a prefilter by name reads the vocabulary before the first document request', async () => {
    const { requests } = await runJob(rig, 'rule_id=by-type');
    const firstDocument = requests.findIndex(isDocumentList);
    assert.equal(requests.slice(0, firstDocument).filter(isList).length, LISTS.length, JSON.stringify(requests));
    assert.ok(paramsOf(requests[firstDocument]).get('document_type__id__in'), 'the filter names the type by id');
  });
});
