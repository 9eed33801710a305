import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RuleDefinition } from '../../../../server/engine/model.js';
import { kindsUsedBy, permissionProblem, usesPermissions } from '../../../../server/runs/pipeline/rule-permissions.js';

const kinds = (rule: Omit<RuleDefinition, 'id'>) => [...kindsUsedBy({ id: 'r', ...rule })].sort();

describe('which vocabulary kinds a rule needs', () => {
  test('conditions, nested combinators included, name the kinds they test', () => {
    assert.deepEqual(
      kinds({
        when: {
          all: [
            { tags: { any: ['A'] } },
            { not: { 'custom_fields.Betrag': { exists: true } } },
            { any: [{ correspondent: 'X' }] },
          ],
        },
      }),
      ['correspondents', 'custom_fields', 'tags'],
    );
  });

  test('actions name what they write; templates and extraction sources what they read', () => {
    assert.deepEqual(kinds({ actions: [{ set_document_type: 'Rechnung' }, { set_storage_path: 'Finanzen' }] }), [
      'document_types',
      'storage_paths',
    ]);
    assert.deepEqual(kinds({ actions: [{ set_title: '{{ doc.correspondent }} {{ total }}' }] }), ['correspondents']);
    assert.deepEqual(kinds({ extract: { total: { from: 'custom_fields.Betrag', regex: '(?<value>\\d+)' } } }), [
      'custom_fields',
    ]);
  });

  test('owner needs the user list; a permission action needs users and groups, whose ids it reads back', () => {
    assert.deepEqual(kinds({ when: { owner: 'anna' }, actions: [{ set_owner: 'ben' }] }), ['users']);
    assert.deepEqual(kinds({ actions: [{ add_permissions: { view: { users: ['ben'] } } }] }), ['groups', 'users']);
    assert.match(
      permissionProblem({ id: 'r', actions: [{ remove_permissions: 'all' }] }, [
        { kind: 'groups', permission: 'view_group' },
      ]) ?? '',
      /may not view groups \(view_group\)/,
    );
  });

  test('a computed condition reads every doc field it names, as a whole expression', () => {
    assert.deepEqual(kinds({ when: { check: "doc.custom_fields.Betrag > 100 and doc.owner == 'anna'" } }), [
      'custom_fields',
      'users',
    ]);
  });

  test('documents are read with their permissions for a permission action or a template reading them, and only then', () => {
    const id = 'r';
    assert.equal(usesPermissions({ id, actions: [{ remove_permissions: 'all' }] }), true);
    assert.equal(
      usesPermissions({ id, actions: [{ add_note: 'shared with {{ doc.permissions.view.groups | join: ", " }}' }] }),
      true,
    );
    assert.equal(usesPermissions({ id, when: { check: 'doc.permissions.view.users.size > 0' } }), true);
    assert.equal(
      usesPermissions({ id, actions: [{ set_owner: 'ben' }, { add_note: 'doc.permissions is not a template here' }] }),
      false,
    );
    assert.deepEqual(kinds({ actions: [{ add_note: '{{ doc.permissions.view.users }}' }] }), ['groups', 'users']);
    // A permission list as a condition field, in when: or in an action's if:.
    assert.equal(usesPermissions({ id, when: { 'permissions.view.groups': { none: ['Familie'] } } }), true);
    assert.equal(
      usesPermissions({ id, actions: [{ add_tags: 'x', if: { check: "doc.permissions.view.users contains 'ben'" } }] }),
      true,
    );
    assert.deepEqual(kinds({ actions: [{ add_tags: 'x', if: { correspondent: 'ACME' } }] }), [
      'correspondents',
      'tags',
    ]);
  });

  test('plain text that happens to say "tags" needs nothing, nor does a title-only rule', () => {
    assert.deepEqual(
      kinds({
        when: { title: { contains: 'tags' } },
        actions: [{ add_note: 'check the tags and custom_fields' }, { set_title: '{{ doc.title }}' }],
      }),
      [],
    );
  });

  test('a definition asked about again (a job asks for every document) gets the same answer, each its own', () => {
    const owners: RuleDefinition = { id: 'owners', when: { owner: 'anna' } };
    const titles: RuleDefinition = { id: 'titles', actions: [{ set_title: 'x' }] };
    assert.deepEqual([...kindsUsedBy(owners)], ['users']);
    assert.deepEqual([...kindsUsedBy(titles)], []);
    assert.equal(kindsUsedBy(owners), kindsUsedBy(owners), 'scanned once');
    assert.deepEqual([...kindsUsedBy(owners)], ['users']);
    assert.equal(permissionProblem(titles, [{ kind: 'users', permission: 'view_user' }]), null);
    assert.match(permissionProblem(owners, [{ kind: 'users', permission: 'view_user' }]) ?? '', /view_user/);
  });

  test('the problem names each missing permission the rule needs, and nothing when it needs none of them', () => {
    const forbidden = [
      { kind: 'custom_fields' as const, permission: 'view_customfield' },
      { kind: 'tags' as const, permission: 'view_tag' },
    ];
    assert.equal(permissionProblem({ id: 'r', actions: [{ set_title: 'x' }] }, forbidden), null);
    assert.match(
      permissionProblem({ id: 'r', actions: [{ add_tags: 'A' }, { set_custom_fields: { Betrag: 1 } }] }, forbidden) ??
        '',
      /may not view custom fields \(view_customfield\) or tags \(view_tag\)/,
    );
  });
});
