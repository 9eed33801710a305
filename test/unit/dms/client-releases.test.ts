import '../../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import { after, beforeEach, describe, test } from 'node:test';
import { DmsError } from '../../../server/dms/dms-errors.js';
import { createPaperlessClient } from '../../../server/dms/paperless-client.js';
import { isGivenAway } from '../../../server/dms/release-writes.js';
import { releaseQuirks } from '../../../server/dms/release.js';
import { startSimulator, type Simulator } from '../../../tools/paperless-sim/simulator.js';
import type { DmsClient } from '../../../server/dms/types.js';
import { PROFILES, releaseOf } from '../../helpers/profiles.js';

// The client writes what each release can take, so every profile ends with the same stored document.
// Seed: documents 7 and 10 are unowned; anna (3) owns 8; carla (5) is an ordinary user; field 4 is a string.

describe('releaseQuirks: the release group from X-Version', () => {
  test('each boundary of the source', () => {
    const group = (v: string | undefined) => releaseQuirks(v).group;
    assert.deepEqual(
      [
        '2.16.0',
        '2.18.4',
        '2.19.0',
        '2.20.12',
        '2.20.13',
        '2.20.15',
        '3.0.0',
        '3.0.4',
        '3.0.5',
        '3.1.0',
        undefined,
        'dev',
      ].map(group),
      [
        '2.16–2.18',
        '2.16–2.18',
        '2.19–2.20.12',
        '2.19–2.20.12',
        '2.20.13+',
        '2.20.13+',
        '3.0.0–3.0.4',
        '3.0.0–3.0.4',
        '3.0.5+',
        '3.0.5+',
        '3.0.5+',
        '3.0.5+',
      ],
    );
    assert.ok(releaseQuirks('2.18.4').differences.some((d) => /doc_url/.test(d)));
    assert.deepEqual(releaseQuirks('3.0.5').differences, []);
  });
});

for (const name of PROFILES) {
  const release = releaseOf(name);
  describe(`the client on profile ${name} (Paperless-ngx ${release})`, () => {
    let sim: Simulator;
    let dms: DmsClient;
    let link: number;
    const clients: DmsClient[] = [];
    const client = (token: string) => {
      const made = createPaperlessClient({ url: sim.url, token, retries: 0 });
      clients.push(made);
      return made;
    };
    beforeEach(async () => {
      await Promise.all(clients.splice(0).map((c) => c.close()));
      await sim?.close();
      sim = await startSimulator({ profile: name, generate: { count: 1100, seed: 3 } });
      dms = client(sim.token);
      const res = await fetch(`${sim.url}/api/custom_fields/`, {
        method: 'POST',
        headers: { authorization: `Token ${sim.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Siehe auch', data_type: 'documentlink' }),
      });
      link = ((await res.json()) as { id: number }).id;
      await dms.vocabulary({ refresh: true });
    });
    after(async () => {
      await Promise.all(clients.map((c) => c.close()));
      await sim.close();
    });

    test('ping names the release group and what differs for it', async () => {
      const ping = await dms.ping();
      assert.equal(ping.version, release);
      assert.equal(ping.releaseGroup, releaseQuirks(release).group);
      assert.deepEqual(ping.releaseDifferences, releaseQuirks(release).differences);
    });

    test('an empty document-link field set together with another field: both stored, never half', async () => {
      await dms.bulkEdit([10, 7], 'modify_custom_fields', {
        add_custom_fields: { 4: 'R-7', [link]: null },
        remove_custom_fields: [],
      });
      for (const id of [10, 7]) {
        assert.deepEqual(
          sim.store
            .getDocument(id)!
            .custom_fields.map((cf) => [cf.field, cf.value])
            .sort(),
          [
            [4, 'R-7'],
            [link, null],
          ].sort(),
          `document ${id}`,
        );
      }
    });

    test('a link to a document the dms does not have is refused before anything is stored', async () => {
      await assert.rejects(
        dms.bulkEdit([10], 'modify_custom_fields', {
          add_custom_fields: { [link]: [99_999] },
          remove_custom_fields: [],
        }),
        (err: unknown) => {
          assert.ok(err instanceof DmsError);
          assert.match(err.message, /99999|don't exist/);
          return true;
        },
      );
      assert.deepEqual(sim.store.getDocument(10)!.custom_fields, []);
    });

    test('a bad bulk value Paperless refuses comes back in its own words, as JSON (3.0.5) or as text (before)', async () => {
      const integer = (
        (await (
          await fetch(`${sim.url}/api/custom_fields/`, {
            method: 'POST',
            headers: { authorization: `Token ${sim.token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ name: 'Anzahl', data_type: 'integer' }),
          })
        ).json()) as { id: number }
      ).id;
      await assert.rejects(
        dms.bulkEdit([10], 'modify_custom_fields', {
          add_custom_fields: { [integer]: 'viele' },
          remove_custom_fields: [],
        }),
        (err: unknown) => {
          assert.ok(err instanceof DmsError);
          assert.match(
            err.message,
            releaseQuirks(release).bulkValuesUnchecked
              ? /Error performing bulk edit, check logs for more detail\./
              : new RegExp(`add_custom_fields: ${integer}: .*integer`, 'i'),
          );
          return true;
        },
      );
      assert.deepEqual(sim.store.getDocument(10)!.custom_fields, []);
    });

    test('giving a document away as an ordinary user is applied; on 2.x the 404 after it is "stored, no longer visible"', async () => {
      const carla = client(sim.tokenFor('carla'));
      const answer = await carla.updateDocument(7, { owner: 3, title: 'Für Anna' });
      assert.equal(sim.store.getDocument(7)!.owner, 3);
      assert.equal(answer.owner, 3);
      assert.equal(answer.title, 'Für Anna');
      assert.equal(isGivenAway(answer), releaseQuirks(release).giveAwayAnswers404);
    });

    test('a scan reads every document once and never pages through ids the first answer already listed', async () => {
      sim.resetCounts();
      const seen: number[] = [];
      for await (const page of dms.pages({ pageSize: 500 })) seen.push(...page.documents.map((d) => d.id));
      assert.equal(new Set(seen).size, sim.store.documents.size);
      assert.equal(seen.length, sim.store.documents.size);
      // 3.0 (no `all`): a probe, then 3 plain pages (no id snapshot); 2.x: the probe's `all` is the id list, 3 chunks.
      assert.equal(sim.counts()['GET /api/documents/'], 4);
    });
  });
}
