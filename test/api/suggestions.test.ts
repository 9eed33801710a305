import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import type { EventRecord } from '../../server/history/event-types.js';
import { loadLabelledArchive } from '../../tools/paperless-sim/labelled-archive.js';
import { API_TOKEN, call } from '../helpers/test-server.js';
import { startJob, startRig, waitForEvent, type Rig } from './support/jobs-kit.js';

const LIMIT_MS = 120_000;

async function suggest(rig: Rig, body: unknown): Promise<EventRecord> {
  const res = await call(rig.server.url, '/api/suggestions', { method: 'POST', token: API_TOKEN, body });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return waitForEvent(rig.server.url, res.body.event_id as number, undefined, LIMIT_MS);
}

describe('rule suggestions from labelled documents', () => {
  let rig: Rig;
  let tagIds: Record<string, number>;
  before(async () => {
    rig = await startRig('rules: []\n');
    ({ tagIds } = loadLabelledArchive(rig.sim.store, 400, { seed: 3 }));
  });
  after(async () => rig?.close());

  it('finds the two-word rule behind a tag, and a dry-run job of its file gives the same figures', async () => {
    const event = await suggest(rig, { target: { tag: 'Garten' } });
    assert.equal(event.status, 'done', JSON.stringify(event));
    assert.equal(event.kind, 'suggestion');
    const suggestions = event.report?.suggestions ?? [];
    assert.ok(suggestions.length >= 1 && suggestions.length <= 3);
    for (let i = 1; i < suggestions.length; i++) assert.ok(suggestions[i - 1].precision >= suggestions[i].precision);
    const best = suggestions[0];
    assert.ok(best.precision >= 0.95, `precision ${best.precision}`);
    assert.match(best.yaml, /garten/i);
    assert.match(best.yaml, /rechnung/i);
    const rule = (parse(best.yaml) as { rules: Array<{ tests: Array<{ expect: { matched: boolean } }> }> }).rules[0];
    assert.deepEqual(
      rule.tests.map((t) => t.expect.matched),
      [true, false],
      'one real example that must match and one that must not',
    );
    assert.ok(best.holdout.method.includes('cross-validation'));
    const all = rig.sim.store.documents.size;
    assert.deepEqual(
      event.report?.visibility,
      { listed: all, read: all, not_delivered: 0, superuser: true, warnings: [] },
      "a superuser's token sees the whole archive",
    );
    assert.equal(best.would_add.length, Math.min(best.would_add_count, 20));

    // The same file saved as a rule and run as a dry-run job matches the same documents.
    fs.writeFileSync(path.join(rig.server.rulesDir, 'suggested.yml'), best.yaml);
    const reload = await call(rig.server.url, '/api/reload', { method: 'POST', token: API_TOKEN });
    assert.equal(reload.status, 200, JSON.stringify(reload.body));
    const started = await startJob(rig.server.url, `rule_id=${best.rule_id}&dry_run=true`);
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const job = await waitForEvent(rig.server.url, started.body.event_id as number, undefined, LIMIT_MS);
    assert.equal(job.status, 'done', JSON.stringify(job));
    assert.equal(job.matched, best.matched);
    const labelled = [...rig.sim.store.documents.values()].filter((d) => d.tags.includes(tagIds.Garten)).length;
    assert.equal(best.labelled, labelled);
    assert.equal(best.recall, Math.round(((best.matched - best.would_add_count) / labelled) * 1000) / 1000);
  });

  it("shows a document with a candidate's matches marked; an unknown candidate is a 404", async () => {
    const event = await suggest(rig, { target: { tag: 'Garten' } });
    const best = event.report?.suggestions?.[0];
    assert.ok(best, JSON.stringify(event));
    const missed = new Set(best.would_miss.map((d) => d.id));
    const found = [...rig.sim.store.documents.values()].find(
      (d) => d.tags.includes(tagIds.Garten) && !missed.has(d.id),
    );
    assert.ok(found && best.would_miss_count <= 20, 'a labelled document the rule matches');
    const path = `/api/suggestions/${event.event_id}/documents/${found.id}`;
    const res = await call<{
      document: { content: string };
      matches: Array<{ rule_id: string; start: number; end: number }>;
    }>(rig.server.url, `${path}?rule_id=${best.rule_id}`, { token: API_TOKEN });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(res.body.matches.length > 0, 'the words it found are marked');
    for (const m of res.body.matches) {
      assert.equal(m.rule_id, best.rule_id);
      assert.ok(
        best.yaml.toLowerCase().includes(res.body.document.content.slice(m.start, m.end).toLowerCase().split(/\s+/)[0]),
      );
    }
    const unknown = await call(rig.server.url, `${path}?rule_id=nope`, { token: API_TOKEN });
    assert.equal(unknown.status, 404);
    assert.match(String(unknown.body.error), /ask for the suggestion again/);
    const without = await call(rig.server.url, path, { token: API_TOKEN });
    assert.equal(without.status, 400);
  });

  it('gives the same rules for the same archive and request', async () => {
    const first = await suggest(rig, { target: { tag: 'Strom' } });
    const second = await suggest(rig, { target: { tag: 'Strom' } });
    assert.equal(first.status, 'done', JSON.stringify(first));
    assert.deepEqual(
      second.report?.suggestions?.map((s) => s.yaml),
      first.report?.suggestions?.map((s) => s.yaml),
    );
  });

  it('asks for more labelled documents when fewer than five carry the label', async () => {
    const event = await suggest(rig, { target: { tag: 'Versicherung' } });
    assert.equal(event.status, 'failed');
    assert.match(event.error ?? '', /label a few more/);
  });

  it('names the labels the dms has when the target is unknown', async () => {
    const event = await suggest(rig, { target: { tag: 'Nirgendwo' } });
    assert.equal(event.status, 'failed');
    assert.match(event.error ?? '', /no tag named "Nirgendwo".*"Garten"/);
    const type = await suggest(rig, { target: { document_type: 'Nirgendwo' } });
    assert.equal(type.status, 'failed');
    assert.match(type.error ?? '', /no document type named "Nirgendwo"/);
  });

  it('says which documents look alike when no rule separates a label', async () => {
    const docs = [...rig.sim.store.documents.values()].sort((a, b) => a.id - b.id);
    // Every seventh ordinary document: a label with no reason behind it.
    for (const doc of docs.filter((_, i) => i % 7 === 0)) doc.tags = [...doc.tags, tagIds.Reisen + 100];
    rig.sim.store.insertObject('tags', { name: 'Zufall', is_inbox_tag: false, parent: null, owner: null });
    const zufall = rig.sim.store.objects.tags.find((t) => t.name === 'Zufall')?.id as number;
    for (const doc of docs) doc.tags = doc.tags.map((t) => (t === tagIds.Reisen + 100 ? zufall : t));
    const event = await suggest(rig, { target: { tag: 'Zufall' } });
    assert.equal(event.status, 'failed', JSON.stringify(event.report?.suggestions?.[0]));
    assert.match(event.error ?? '', /best found: precision 0\.\d+.*look alike: #\d+/);
  });

  it('cancels a running suggestion from the events route; a second cancel is a 409', async () => {
    const hold = rig.sim.faults.inject({ route: 'GET /api/documents/', kind: 'hold' });
    const res = await call(rig.server.url, '/api/suggestions', {
      method: 'POST',
      token: API_TOKEN,
      body: { target: { tag: 'Strom' } },
    });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const id = res.body.event_id as number;
    await waitForEvent(rig.server.url, id, (e) => e.status === 'running');
    // Five wait behind it; a sixth is refused in words about suggestions, then the five are cancelled.
    const ask = () =>
      call(rig.server.url, '/api/suggestions', {
        method: 'POST',
        token: API_TOKEN,
        body: { target: { tag: 'Strom' } },
      });
    const waiting: number[] = [];
    for (let i = 0; i < 5; i++) waiting.push(Number((await ask()).body.event_id));
    const refused = await ask();
    assert.equal(refused.status, 503, JSON.stringify(refused.body));
    assert.match(String(refused.body.error), /^5 suggestions are already waiting; try again when one has finished/);
    for (const queued of waiting)
      assert.equal(
        (await call(rig.server.url, `/api/events/${queued}/cancel`, { method: 'POST', token: API_TOKEN })).status,
        200,
      );
    const cancel = await call(rig.server.url, `/api/events/${id}/cancel`, { method: 'POST', token: API_TOKEN });
    assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
    rig.sim.faults.release(hold.id);
    const event = await waitForEvent(rig.server.url, id, undefined, LIMIT_MS);
    assert.equal(event.status, 'cancelled', JSON.stringify(event));
    assert.equal(event.error, 'Cancelled on request.', 'worded as every other cancelled event');
    assert.equal(event.report, null);
    const again = await call(rig.server.url, `/api/events/${id}/cancel`, { method: 'POST', token: API_TOKEN });
    assert.equal(again.status, 409);
  });

  it('refuses a request without a target with 400 and what to send', async () => {
    const res = await call(rig.server.url, '/api/suggestions', { method: 'POST', token: API_TOKEN, body: {} });
    assert.equal(res.status, 400);
    assert.match(String(res.body.error), /target/);
    const unauthenticated = await call(rig.server.url, '/api/suggestions', { method: 'POST', body: {} });
    assert.equal(unauthenticated.status, 401);
  });
});

const LIMITED_TOKEN = 'b'.repeat(40);
const ANNA = 3;

describe('rule suggestions when the token cannot read the whole archive', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig(
      'rules: []\n',
      { SVC_DMS_TOKEN: LIMITED_TOKEN },
      {
        limitedUser: {
          token: LIMITED_TOKEN,
          permissions: [
            'view_document',
            'view_tag',
            'view_correspondent',
            'view_documenttype',
            'view_storagepath',
            'view_customfield',
            'view_uisettings',
          ],
        },
      },
    );
    loadLabelledArchive(rig.sim.store, 400, { seed: 3 });
    // Every tenth document belongs to anna and is granted to nobody: Paperless hides it from ben's lists and counts.
    const docs = [...rig.sim.store.documents.values()].sort((a, b) => a.id - b.id);
    for (const doc of docs.filter((_, i) => i % 10 === 0)) doc.owner = ANNA;
  });
  after(async () => rig?.close());

  it('says the token is not a superuser and that Paperless does not tell how many documents it hides', async () => {
    const visible = [...rig.sim.store.documents.values()].filter((d) => d.owner !== ANNA).length;
    const event = await suggest(rig, { target: { tag: 'Garten' } });
    assert.equal(event.status, 'done', JSON.stringify(event));
    const seen = event.report?.visibility;
    assert.equal(seen?.superuser, false);
    assert.equal(seen?.listed, visible, 'the list and its count leave the hidden documents out');
    assert.equal(seen?.read, visible);
    assert.equal(seen?.not_delivered, 0);
    assert.equal(seen?.warnings.length, 1);
    assert.match(seen?.warnings[0] ?? '', new RegExp(`not a superuser.*cannot be known.*the ${visible} documents`));
    assert.match(event.report?.summary ?? '', /Not every document was visible/);
  });

  it('counts the documents the dms listed but did not deliver while the archive was read', async () => {
    // The first page of the read waits until the seven oldest visible documents are gone from the token's view.
    const hold = rig.sim.faults.inject({ route: 'GET /api/documents/', kind: 'hold', params: { ordering: /^id$/ } });
    const res = await call(rig.server.url, '/api/suggestions', {
      method: 'POST',
      token: API_TOKEN,
      body: { target: { tag: 'Strom' } },
    });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const listed = [...rig.sim.store.documents.values()].filter((d) => d.owner !== ANNA);
    await waitUntil(() => rig.sim.faults.list().some((f) => f.id === hold.id && f.hits > 0));
    for (const doc of listed.sort((a, b) => a.id - b.id).slice(0, 7)) doc.owner = ANNA;
    rig.sim.faults.release(hold.id);
    const event = await waitForEvent(rig.server.url, res.body.event_id as number, undefined, LIMIT_MS);
    assert.equal(event.status, 'done', JSON.stringify(event));
    const seen = event.report?.visibility;
    assert.equal(seen?.listed, listed.length);
    assert.equal(seen?.read, listed.length - 7);
    assert.equal(seen?.not_delivered, 7);
    assert.match(
      seen?.warnings[0] ?? '',
      new RegExp(`^7 of the ${listed.length} documents the dms listed .* not delivered`),
    );
  });

  it('tells the same in an error: a label may look rare because the token sees part of the archive', async () => {
    const reisen = rig.sim.store.objects.tags.find((t) => t.name === 'Reisen')?.id as number;
    const labelled = [...rig.sim.store.documents.values()].filter((d) => d.tags.includes(reisen) && d.owner !== ANNA);
    for (const doc of labelled.slice(3)) doc.owner = ANNA;
    const event = await suggest(rig, { target: { tag: 'Reisen' } });
    assert.equal(event.status, 'failed');
    assert.match(
      event.error ?? '',
      /^Only 3 of \d+ documents carry the tag Reisen; label a few more.*not a superuser.*cannot be known/,
    );
  });
});

/** Waits for a condition the test cannot be told of otherwise (a request reaching the simulator), a turn at a time. */
async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
