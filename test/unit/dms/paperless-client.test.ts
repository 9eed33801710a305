import '../../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { DmsError, DmsNotFoundError, DmsQueryError } from '../../../server/dms/dms-errors.js';
import { releaseQuirks } from '../../../server/dms/release.js';
import { createPaperlessClient } from '../../../server/dms/paperless-client.js';
import { startSimulator, type Simulator } from '../../../tools/paperless-sim/simulator.js';
import type { DmsClient } from '../../../server/dms/types.js';

// Everything below holds for both releases the client supports; 2.20 is spoken to with API version 9 after one 406.
const PROFILES = [
  { name: '3.0', api: 10, release: '3.0.5' },
  { name: '2.20', api: 9, release: '2.20.11' },
] as const;

for (const profile of PROFILES)
  describe(`the Paperless client against the simulator (profile ${profile.name})`, () => {
    /** Requests a fresh client spends finding the API version: one 406 per version it steps down. */
    const negotiation = 10 - profile.api;
    let sim: Simulator;
    let dms: DmsClient;
    before(async () => {
      sim = await startSimulator({ profile: profile.name });
      dms = createPaperlessClient({ url: sim.url, token: sim.token });
    });
    after(async () => {
      await dms.close();
      await sim.close();
    });
    beforeEach(() => sim.resetCounts());

    test('ping reports the Paperless version and the API version chosen from what the server allows', async () => {
      assert.deepEqual(await dms.ping(), {
        ok: true,
        version: profile.release,
        apiVersion: profile.api,
        serverApiVersion: profile.api,
        supportedVersions: '2.16 to 3.0.x',
        forbidden: [],
        releaseGroup: releaseQuirks(profile.release).group,
        releaseDifferences: releaseQuirks(profile.release).differences,
      });
    });

    test('getDocument returns the document; a missing one is DmsNotFoundError naming the id', async () => {
      const doc = await dms.getDocument(1);
      assert.equal(doc.title, 'Stromrechnung Januar 2025');
      assert.deepEqual(doc.tags, [3, 2, 9]);
      await assert.rejects(dms.getDocument(11), (err: unknown) => {
        assert.ok(err instanceof DmsNotFoundError);
        assert.match(err.message, /Document 11 does not exist/);
        return true;
      });
    });

    test('getDocument reads the permissions; getDocuments and getWriteStates read many documents in one request, skipping gone ones', async () => {
      assert.deepEqual((await dms.getDocument(1)).permissions, {
        view: { users: [], groups: [] },
        change: { users: [], groups: [] },
      });
      sim.resetCounts();
      const docs = await dms.getDocuments([3, 1, 999]);
      assert.deepEqual(docs.map((d) => d.id).sort(), [1, 3]);
      assert.equal(docs[0].content.length > 0, true, 'whole documents, content included');
      const states = await dms.getWriteStates([1, 3]);
      assert.equal(states.find((d) => d.id === 1)?.title, 'Stromrechnung Januar 2025');
      assert.equal('content' in states[0], false, 'only the fields a write depends on');
      assert.equal(sim.counts()['GET /api/documents/'], 2);
    });

    test('users and groups are listed only when asked for, once, and join the cached vocabulary', async () => {
      const fresh = createPaperlessClient({ url: sim.url, token: sim.token });
      try {
        const plain = await fresh.vocabulary();
        assert.equal(plain.users, undefined);
        assert.equal(sim.counts()['GET /api/users/'] ?? 0, 0);
        const [a, b] = await Promise.all([
          fresh.vocabulary({ principals: true }),
          fresh.vocabulary({ principals: true }),
        ]);
        assert.equal(a, b);
        assert.ok(a.users?.some((u) => u.name === 'anna') && a.groups?.some((g) => g.name === 'Family'));
        assert.equal((await fresh.vocabulary()).users, a.users, 'later callers get them from the cache');
        assert.equal(sim.counts()['GET /api/users/'], 1);
        assert.equal(sim.counts()['GET /api/groups/'], 1);
      } finally {
        await fresh.close();
      }
    });

    test('a wrong token is a DmsError carrying the dms message and the request', async () => {
      const bad = createPaperlessClient({ url: sim.url, token: '0'.repeat(40) });
      try {
        await assert.rejects(bad.getDocument(1), (err: unknown) => {
          assert.ok(err instanceof DmsError);
          assert.equal(err.dmsStatus, 401);
          assert.equal(err.request, 'GET /api/documents/1/');
          assert.match(err.message, /401 to GET \/api\/documents\/1\/: Invalid token\./);
          return true;
        });
        assert.equal(sim.counts()['GET /api/documents/{id}/'], 1 + negotiation, '401 is not retried');
      } finally {
        await bad.close();
      }
    });

    test('a base URL that is not Paperless (redirect to login) is reported, never followed', async () => {
      const wrong = createPaperlessClient({ url: `${sim.url}/paperless`, token: sim.token, retries: 0 });
      try {
        await assert.rejects(
          wrong.getDocument(1),
          /redirected GET \/paperless\/api\/documents\/1\/ to \/accounts\/login\/.*Paperless base URL/,
        );
      } finally {
        await wrong.close();
      }
    });

    test('pages streams in id order with filters and fields', async () => {
      const ids: number[] = [];
      let count = -1;
      for await (const page of dms.pages({ filters: { tags__id__all: '1' }, fields: ['id', 'title'], pageSize: 2 })) {
        count = page.count;
        for (const doc of page.documents) {
          assert.deepEqual(Object.keys(doc), ['id', 'title']);
          ids.push(doc.id);
        }
      }
      assert.deepEqual(ids, [6, 7, 10, 13]);
      assert.equal(count, 4);
      // 2.x: the probe's `all` already lists the matching ids, so no id page is read.
      const idPages = profile.api < 10 ? 0 : 1;
      assert.equal(sim.counts()['GET /api/documents/'], 3 + idPages, 'a count probe, the id pages, then two pages');
    });

    test('an unknown filter name is refused before any request (no silent widening)', async () => {
      const pages = dms.pages({ filters: { tag__id: '1' } });
      await assert.rejects(
        pages.next(),
        (err: unknown) => err instanceof DmsQueryError && /Unknown dms document filter "tag__id"/.test(err.message),
      );
      assert.equal(sim.counts()['GET /api/documents/'], undefined);
    });

    test('updateDocument replaces the tag set and custom fields (whole-set semantics) and bumps modified', async () => {
      const before = await dms.getDocument(2);
      const updated = await dms.updateDocument(2, { tags: [5], custom_fields: [{ field: 4, value: 'T-1' }] });
      assert.deepEqual(updated.tags.sort(), [4, 5], 'tag 5 brings its parent 4; 2 and 9 are gone');
      assert.deepEqual(updated.custom_fields, [{ value: 'T-1', field: 4 }]);
      assert.ok(updated.modified > before.modified);
      assert.ok('permissions' in updated, 'PATCH answers with full permissions');
      assert.deepEqual((await dms.getDocument(2)).tags.sort(), [4, 5]);
    });

    test('updateDocument with an invalid value surfaces the dms field error', async () => {
      await assert.rejects(
        dms.updateDocument(10, {
          custom_fields: [
            { field: 1, value: 'EUR39.95' },
            { field: 3, value: 'offen' },
          ],
        }),
        (err: unknown) => {
          assert.ok(err instanceof DmsError);
          assert.equal(err.dmsStatus, 400);
          assert.match(err.message, /custom_fields\[1\] Value must be an id of an element in/);
          return true;
        },
      );
      assert.equal(sim.counts()['PATCH /api/documents/{id}/'], 1, '400 is not retried');
    });

    test('bulkEdit applies modify_tags to several documents; modified moves only when the task has run', async () => {
      const before = await dms.getDocument(6);
      sim.setTasks({ hold: true });
      await dms.bulkEdit([6, 7], 'modify_tags', { add_tags: [9], remove_tags: [1] });
      const [six, seven] = [await dms.getDocument(6), await dms.getDocument(7)];
      assert.ok(six.tags.includes(9) && !six.tags.includes(1));
      assert.deepEqual(seven.tags, [9]);
      assert.equal(six.modified, before.modified, 'queryset updates within the request');
      sim.releaseTasks();
      sim.setTasks(null);
      assert.notEqual((await dms.getDocument(6)).modified, before.modified, 'bulk_update_documents moved it');
      await assert.rejects(dms.bulkEdit([6], 'modify_tags', { add_tags: [9] }), /remove_tags not specified/);
    });

    test('addNote returns the whole list', async () => {
      const notes = await dms.addNote(3, 'geprüft');
      assert.equal(notes.at(-1)?.note, 'geprüft');
      assert.equal(notes.at(-1)?.user?.username, 'anna');
    });

    test('vocabulary is cached until refreshed', async () => {
      const first = await dms.vocabulary({ refresh: true });
      assert.equal(first.tags.length, 9);
      assert.equal(first.custom_fields.find((f) => f.name === 'Zahlungsstatus')?.extra_data.select_options?.length, 3);
      const afterFirst = sim.counts()['GET /api/tags/'];
      await dms.vocabulary();
      await Promise.all([dms.vocabulary(), dms.vocabulary()]);
      assert.equal(sim.counts()['GET /api/tags/'], afterFirst, 'served from the cache');
      await dms.vocabulary({ refresh: true });
      assert.equal(sim.counts()['GET /api/tags/'], afterFirst + 1);
    });

    test('a caller during a refresh waits for it, never served the older copy', async () => {
      await dms.vocabulary({ refresh: true });
      sim.store.objects.tags.push({ ...sim.store.objects.tags[0], id: 9001, name: 'während-des-lesens' });
      try {
        const refreshing = dms.vocabulary({ refresh: true });
        const meanwhile = await dms.vocabulary();
        assert.equal(meanwhile, await refreshing);
        assert.ok(meanwhile.tags.some((t) => t.name === 'während-des-lesens'));
      } finally {
        sim.store.objects.tags.pop();
        await dms.vocabulary({ refresh: true });
      }
    });

    test('fetchedSince: a copy asked for before then is read again, one asked for since is served', async () => {
      let clock = 1_000_000;
      const clocked = createPaperlessClient({ url: sim.url, token: sim.token, now: () => clock });
      try {
        await clocked.vocabulary();
        const lists = () => sim.counts()['GET /api/tags/'] ?? 0;
        const before = lists();
        const since = ++clock;
        const fresh = await clocked.vocabulary({ fetchedSince: since });
        assert.equal(lists(), before + 1, 'the cached copy was older than asked');
        assert.equal(await clocked.vocabulary({ fetchedSince: since }), fresh);
        assert.equal(lists(), before + 1, 'the copy read since then serves');
      } finally {
        await clocked.close();
      }
    });

    test('a cached vocabulary older than its time-to-live is fetched again', async () => {
      let clock = 1_000_000;
      const short = createPaperlessClient({ url: sim.url, token: sim.token, vocabularyTtlMs: 1000, now: () => clock });
      try {
        await short.vocabulary();
        const fetched = sim.counts()['GET /api/custom_fields/'];
        clock += 1000;
        await short.vocabulary();
        assert.equal(sim.counts()['GET /api/custom_fields/'], fetched, 'still within its time-to-live');
        clock += 1;
        await short.vocabulary();
        assert.equal(sim.counts()['GET /api/custom_fields/'], fetched + 1);
      } finally {
        await short.close();
      }
    });

    test('createObject creates an unowned object with matching_algorithm 0 and adds it to the cache', async () => {
      await dms.vocabulary();
      const created = await dms.createObject('correspondents', 'Vodafone GmbH');
      const raw = (await (
        await fetch(`${sim.url}/api/correspondents/${created.id}/`, {
          headers: { authorization: `Token ${sim.token}` },
        })
      ).json()) as Record<string, unknown>;
      assert.equal(raw.owner, null);
      assert.equal(raw.matching_algorithm, 0);
      assert.ok((await dms.vocabulary()).correspondents.some((c) => c.id === created.id));
    });

    test('createObject gives a storage path the path template Paperless requires (the given one, else "<name>/{{ title }}")', async () => {
      const get = async (id: number) =>
        (await (
          await fetch(`${sim.url}/api/storage_paths/${id}/`, { headers: { authorization: `Token ${sim.token}` } })
        ).json()) as Record<string, unknown>;
      const given = await dms.createObject('storage_paths', 'Belege 2025', 'belege/{{ created_year }}/{{ title }}');
      assert.equal((await get(given.id)).path, 'belege/{{ created_year }}/{{ title }}');
      const defaulted = await dms.createObject('storage_paths', 'Archiv neu');
      assert.equal((await get(defaulted.id)).path, 'Archiv neu/{{ title }}');
      const refused = await fetch(`${sim.url}/api/storage_paths/`, {
        method: 'POST',
        headers: { authorization: `Token ${sim.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Ohne Pfad' }),
      });
      assert.equal(refused.status, 400, 'like Paperless, the simulator refuses a storage path without a path');
    });

    test('concurrent createObject calls for one name send a single POST', async () => {
      await dms.vocabulary();
      sim.resetCounts();
      const all = await Promise.all(Array.from({ length: 20 }, () => dms.createObject('tags', 'Gleichzeitig')));
      assert.equal(new Set(all.map((t) => t.id)).size, 1);
      assert.equal(sim.counts()['POST /api/tags/'], 1);
      await dms.createObject('tags', 'gleichzeitig');
      assert.equal(sim.counts()['POST /api/tags/'], 1, 'a known name (any case) is not created again');
    });

    test('createObject of an existing name returns the existing object instead of failing', async () => {
      const first = await dms.createObject('tags', 'auto-neu');
      const again = await dms.createObject('tags', 'auto-neu');
      assert.equal(again.id, first.id);
      assert.equal(sim.store.objects.tags.filter((t) => t.name === 'auto-neu').length, 1);
    });
  });
