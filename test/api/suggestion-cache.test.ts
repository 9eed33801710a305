import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EventRecord } from '../../server/history/event-types.js';
import { loadLabelledArchive } from '../../tools/paperless-sim/labelled-archive.js';
import { API_TOKEN, call } from '../helpers/test-server.js';
import { startRig, waitForEvent, type Rig } from './support/jobs-kit.js';

const LIMIT_MS = 120_000;

async function suggest(rig: Rig, tag: string): Promise<EventRecord> {
  const res = await call(rig.server.url, '/api/suggestions', {
    method: 'POST',
    token: API_TOKEN,
    body: { target: { tag } },
  });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  const event = await waitForEvent(rig.server.url, res.body.event_id as number, undefined, LIMIT_MS);
  assert.equal(event.status, 'done', JSON.stringify(event));
  return event;
}

/**
 * The document list requests the simulator answered with document text: no `fields=`, or `fields=` naming
 * `content`. Each as the ids it asked for (`id__in`), or `all` for a page of the whole archive.
 */
function textReads(requests: readonly string[]): string[] {
  return requests
    .filter((r) => r.startsWith('GET /api/documents/'))
    .map((r) => new URL(r.slice('GET '.length), 'http://sim').searchParams)
    .filter((q) => !q.has('fields') || (q.get('fields') ?? '').split(',').includes('content'))
    .map((q) => q.get('id__in') ?? 'all');
}

describe('rule suggestions over an archive read before', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig('rules: []\n');
    loadLabelledArchive(rig.sim.store, 400, { seed: 3 });
  });
  after(async () => rig?.close());

  it('reads no document text for a further label of an unchanged archive, and offers what a cold read offers', async () => {
    rig.sim.resetCounts();
    const cold = await suggest(rig, 'Strom');
    assert.ok(textReads(rig.sim.requests()).length > 0, 'the first suggestion reads the text');

    rig.sim.resetCounts();
    const garten = await suggest(rig, 'Garten');
    assert.match(garten.report?.suggestions?.[0]?.yaml ?? '', /garten/i);
    const again = await suggest(rig, 'Strom');
    const requests = rig.sim.requests();
    assert.ok(
      requests.some((r) => r.startsWith('GET /api/documents/')),
      'the archive is listed again (labels and modified)',
    );
    assert.deepEqual(textReads(requests), [], 'no request asked for document text');
    assert.ok(!requests.some((r) => /^GET \/api\/documents\/\d+\//.test(r)), 'no single document read');
    assert.deepEqual(
      again.report?.suggestions?.map((s) => s.yaml),
      cold.report?.suggestions?.map((s) => s.yaml),
      'the cached texts give the rules the cold read gave',
    );
    assert.deepEqual(
      again.report?.suggestions?.map((s) => [s.precision, s.recall, s.matched]),
      cold.report?.suggestions?.map((s) => [s.precision, s.recall, s.matched]),
    );
  });

  it('reads again only a document whose modified changed, and judges its new text', async () => {
    const before = await suggest(rig, 'Strom');
    const best = (e: EventRecord) => e.report?.suggestions?.[0];
    const missed = new Set(best(before)?.would_miss.map((d) => d.id));
    const strom = rig.sim.store.objects.tags.find((t) => t.name === 'Strom')?.id as number;
    const changed = [...rig.sim.store.documents.values()]
      .sort((a, b) => a.id - b.id)
      .find((d) => d.tags.includes(strom) && !missed.has(d.id));
    assert.ok(changed, 'a Strom document the rule matches');
    // A person replaced the OCR text of one Strom letter by a blank page's.
    changed.content = 'Leere Seite';
    changed.modified = rig.sim.store.now();

    rig.sim.resetCounts();
    const after = await suggest(rig, 'Strom');
    assert.deepEqual(textReads(rig.sim.requests()), [String(changed.id)], 'only the changed document is read');
    assert.ok(
      best(after)?.would_miss.some((d) => d.id === changed.id),
      'its new text no longer matches',
    );
  });
});
