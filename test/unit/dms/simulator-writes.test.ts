import '../../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSimulator, type Simulator } from '../../../tools/paperless-sim/simulator.js';

// Seed tags: 4 Steuer ─ 5 Steuer 2025; custom fields: 4 Rechnungsnummer (string).
describe('simulator writes as the real server stores them', () => {
  let sim: Simulator;
  const request = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(sim.url + route, {
      method,
      headers: {
        authorization: `Token ${sim.token}`,
        accept: 'application/json; version=10',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> };
  };
  const tags = (id: number) => [...(sim.store.getDocument(id)?.tags ?? [])].sort((a, b) => a - b);
  const bulk = (documents: number[], method: string, parameters: Record<string, unknown>) =>
    request('POST', '/api/documents/bulk_edit/', { documents, method, parameters });

  before(async () => {
    sim = await startSimulator();
  });
  after(() => sim.close());

  test('PATCH tags [child] on a document holding parent and child removes both, as Paperless does', async () => {
    await request('PATCH', '/api/documents/3/', { tags: [4, 5] });
    assert.deepEqual(tags(3), [4, 5]);
    await request('PATCH', '/api/documents/3/', { tags: [5] });
    assert.deepEqual(tags(3), []);
    await request('PATCH', '/api/documents/3/', { tags: [5] });
    assert.deepEqual(tags(3), [4, 5], 'a requested child brings its parent');
  });

  test('bulk add_tag adds ancestors; remove_tag and modify_tags removals take descendants', async () => {
    await request('PATCH', '/api/documents/4/', { tags: [] });
    await bulk([4], 'add_tag', { tag: 5 });
    assert.deepEqual(tags(4), [4, 5]);
    await bulk([4], 'remove_tag', { tag: 4 });
    assert.deepEqual(tags(4), []);
    await bulk([4], 'modify_tags', { add_tags: [5, 3], remove_tags: [] });
    assert.deepEqual(tags(4), [3, 4, 5]);
    await bulk([4], 'modify_tags', { add_tags: [], remove_tags: [4] });
    assert.deepEqual(tags(4), [3]);
  });

  test('a dangling document link refuses every custom-field PATCH; modify_custom_fields naming other fields still works', async () => {
    const field = await request('POST', '/api/custom_fields/', { name: 'Siehe auch', data_type: 'documentlink' });
    const linkField = field.body.id as number;
    assert.equal(
      (await request('PATCH', '/api/documents/8/', { custom_fields: [{ field: linkField, value: [9] }] })).status,
      200,
    );
    assert.equal((await request('DELETE', '/api/documents/9/')).status, 204);

    const refused = await request('PATCH', '/api/documents/8/', {
      custom_fields: [
        { field: linkField, value: [9] },
        { field: 4, value: 'X-1' },
      ],
    });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body, {
      custom_fields: [{ non_field_errors: ["Some documents in value don't exist or were specified twice."] }, {}],
    });
    const repeated = await request('PATCH', '/api/documents/7/', {
      custom_fields: [{ field: linkField, value: [1, 1] }],
    });
    assert.equal(repeated.status, 400, 'a repeated target is refused too');

    assert.equal(
      (await bulk([8], 'modify_custom_fields', { add_custom_fields: { 4: 'X-1' }, remove_custom_fields: [] })).status,
      200,
    );
    assert.deepEqual(
      sim.store.getDocument(8)?.custom_fields,
      [
        { field: linkField, value: [9] },
        { field: 4, value: 'X-1' },
      ].map(({ field, value }) => ({ value, field })),
    );
    const badLink = await bulk([8], 'modify_custom_fields', {
      add_custom_fields: { [linkField]: [9] },
      remove_custom_fields: [],
    });
    assert.deepEqual(badLink.body, {
      add_custom_fields: {
        [String(linkField)]: { non_field_errors: ["Some documents in value don't exist or were specified twice."] },
      },
    });
  });
});
