import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileRule, runRuleTests, type RuleDocument } from '../../../server/engine/engine.js';
import { completePermissions } from '../../../server/engine/permissions.js';
import { NOW, run } from './helpers.js';
import { sample } from './fixtures/sample-documents.js';

function shared(doc: RuleDocument, permissions: Parameters<typeof completePermissions>[0]): RuleDocument {
  return { ...doc, permissions: completePermissions(permissions) };
}

test('set_owner names a user; the same name in another case is unchanged; null leaves the document without owner', () => {
  const result = run(sample(1), [{ id: 'r', actions: [{ set_owner: 'ben' }] }]);
  assert.equal(result.changes.owner, 'ben');
  assert.deepEqual(result.results[0].changes.owner, { from: 'anna', to: 'ben' });
  assert.equal(
    run(sample(1), [{ id: 'r', actions: [{ set_owner: 'Anna' }] }]).results[0].actions[0].status,
    'unchanged',
  );
  const cleared = run(sample(1), [{ id: 'r', actions: [{ set_owner: null }] }]);
  assert.equal(cleared.changes.owner, null);
});

test('set_owner may be a template over the document', () => {
  const result = run(sample(1), [{ id: 'r', actions: [{ set_owner: "{{ doc.owner | append: '-backup' }}" }] }]);
  assert.equal(result.changes.owner, 'anna-backup');
});

test('add_permissions adds view with change, and a second run of the same rule changes nothing', () => {
  const rule = { id: 'r', actions: [{ add_permissions: { view: { groups: ['Family'] }, change: { users: 'ben' } } }] };
  const result = run(sample(1), [rule]);
  assert.deepEqual(result.changes.permissions, {
    view: { users: ['ben'], groups: ['Family'] },
    change: { users: ['ben'], groups: [] },
  });
  assert.deepEqual(Object.keys(result.results[0].changes).sort(), [
    'permissions.change.users',
    'permissions.view.groups',
    'permissions.view.users',
  ]);
  assert.deepEqual(result.results[0].changes['permissions.view.groups'], { from: [], to: ['Family'] });
  const again = run(result.document, [rule]);
  assert.equal(again.results[0].actions[0].status, 'unchanged');
  assert.deepEqual(again.changes, {});
});

test('set_permissions replaces only the lists it gives; taking view away takes change away too', () => {
  const doc = shared(sample(1), { view: { users: ['ben', 'carla'], groups: ['Family'] }, change: { users: ['ben'] } });
  const result = run(doc, [{ id: 'r', actions: [{ set_permissions: { view: { users: ['carla'] } } }] }]);
  assert.deepEqual(result.document.permissions, {
    view: { users: ['carla'], groups: ['Family'] },
    change: { users: [], groups: [] },
  });
  const emptied = run(doc, [{ id: 'r', actions: [{ set_permissions: { view: { groups: [] } } }] }]);
  assert.deepEqual(emptied.document.permissions?.view, { users: ['ben', 'carla'], groups: [] });
});

test('remove_permissions takes names away by difference, case-insensitively; all empties every list', () => {
  const doc = shared(sample(1), { view: { users: ['ben', 'carla'], groups: ['Family'] }, change: { users: ['ben'] } });
  const result = run(doc, [{ id: 'r', actions: [{ remove_permissions: { change: { users: ['BEN'] } } }] }]);
  assert.deepEqual(result.document.permissions, {
    view: { users: ['ben', 'carla'], groups: ['Family'] },
    change: { users: [], groups: [] },
  });
  const all = run(doc, [{ id: 'r', actions: [{ remove_permissions: 'all' }] }]);
  assert.deepEqual(all.document.permissions, completePermissions({}));
  assert.equal(all.document.owner, 'anna', 'the owner keeps the document');
});

test('a document read without its permissions fails the permission action in its trace, not silently', () => {
  const result = run({ ...sample(1), permissions: null }, [
    { id: 'r', actions: [{ add_permissions: { view: { users: ['ben'] } } }] },
  ]);
  assert.equal(result.results[0].status, 'error');
  assert.match(result.results[0].error ?? '', /read without its permissions/);
});

test('the permission actions are checked when compiled', () => {
  assert.throws(
    () => compileRule({ id: 'r', actions: [{ add_permissions: { edit: { users: ['ben'] } } as never }] }),
    /takes \{ view: \{ users/,
  );
  assert.throws(
    () => compileRule({ id: 'r', actions: [{ add_permissions: { view: { people: ['ben'] } } as never }] }),
    /takes \{ view: \{ users/,
  );
  assert.throws(
    () => compileRule({ id: 'r', actions: [{ remove_permissions: { view: { users: [] } } }] }),
    /needs at least one name/,
  );
  assert.throws(() => compileRule({ id: 'r', actions: [{ set_permissions: {} }] }), /takes \{ view/);
  assert.doesNotThrow(() => compileRule({ id: 'r', actions: [{ set_permissions: { view: { users: [] } } }] }));
});

test('rule tests name owners and compare permission lists as sets, and say when a list is not changed', () => {
  const rule = compileRule({
    id: 'r',
    actions: [{ set_owner: 'anna' }, { add_permissions: { view: { groups: ['Family'] } } }],
    tests: [
      {
        document: { owner: 'ben' },
        expect: { matched: true, changes: { owner: 'anna', permissions: { view: { groups: ['family'] } } } },
      },
      { document: {}, expect: { matched: true, changes: { 'permissions.view.users': ['ben'] } } },
      {
        document: { permissions: { view: { groups: ['Family'] } } },
        expect: { matched: true, changes: { permissions: { view: { groups: ['Family'] } } } },
      },
    ],
  });
  const outcomes = runRuleTests(rule, { now: NOW });
  assert.equal(outcomes[0].ok, true, outcomes[0].message);
  assert.match(outcomes[1].message, /permissions\.view\.users: expected \["ben"\], but the rule does not change it/);
  assert.match(
    outcomes[2].message,
    /permissions\.view\.groups: expected \["Family"\], but the rule does not change it \(it stays \["Family"\]\)/,
  );
});
