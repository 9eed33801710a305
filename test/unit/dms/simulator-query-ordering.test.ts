import '../../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSimulator, type Simulator } from '../../../tools/paperless-sim/simulator.js';

// What queries over other documents send: orderings and filters as Paperless's DocumentsOrderingFilter and
// DocumentFilterSet (v2.18.4, v3.0.5) answer them.
describe('simulator: the orderings and filters queries over other documents use', () => {
  let sim: Simulator;
  const list = async (query: string) => {
    const res = await fetch(`${sim.url}/api/documents/?page_size=30&${query}`, {
      headers: { authorization: `Token ${sim.token}`, accept: 'application/json; version=9' },
    });
    return { status: res.status, body: (await res.json()) as { count: number; results: Array<{ id: number }> } };
  };
  const ids = async (query: string) => (await list(query)).body.results.map((d) => d.id);

  before(async () => {
    sim = await startSimulator();
    sim.addDocument({ id: 50, custom_fields: [{ field: 4, value: 'ZZ-1' }] });
    sim.addDocument({ id: 51, custom_fields: [{ field: 4, value: null }] });
  });
  after(() => sim.close());

  test('-archive_serial_number sorts documents without one first (PostgreSQL), so queries filter them out', async () => {
    assert.deepEqual((await ids('ordering=-archive_serial_number,-id')).slice(0, 1), [51]);
    assert.deepEqual(
      await ids('ordering=-archive_serial_number,-id&archive_serial_number__isnull=false'),
      [2, 1, 3, 4, 8],
    );
  });

  test('custom_field_<id> puts documents with the field first, NULL values first when descending', async () => {
    assert.deepEqual(await ids('ordering=-custom_field_4&custom_fields__id__all=4'), [51, 50, 2, 1, 5]);
    assert.deepEqual(await ids('ordering=custom_field_4&custom_fields__id__all=4'), [5, 1, 2, 50, 51]);
    const present = encodeURIComponent(JSON.stringify([4, 'isnull', false]));
    assert.deepEqual(await ids(`ordering=-custom_field_4&custom_field_query=${present}`), [50, 2, 1, 5]);
  });

  test('a custom field ordering with more keys is a server error there; an unknown field a 400', async () => {
    assert.equal((await list('ordering=-custom_field_4,-id')).status, 500);
    const unknown = await list('ordering=custom_field_99');
    assert.equal(unknown.status, 400);
    assert.deepEqual(unknown.body, { custom_field_99: ['Custom field not found'] });
  });

  test('the asking document is found by id together with the filters of the question', async () => {
    assert.equal(
      (await list('id=2&correspondent__id__in=2&title__iexact=telekom rechnung februar 2025')).body.count,
      1,
    );
    assert.equal(
      (await list('id=10&correspondent__id__in=2&title__iexact=telekom rechnung februar 2025')).body.count,
      0,
    );
  });
});
