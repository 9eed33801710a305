import '../../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSimulator, type Simulator } from '../../../tools/paperless-sim/simulator.js';

// Users, groups and per-document permissions as Paperless-ngx serves them (paperless/views.py, paperless/serialisers.py,
// documents/serialisers.py SetPermissionsMixin and OwnedObjectSerializer, documents/permissions.py, documents/bulk_edit.py).

interface Answer {
  status: number;
  text: string;
  body: Record<string, unknown>;
}

async function call(sim: Simulator, token: string, method: string, route: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Token ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(sim.url + route, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const parsed =
    res.headers.get('content-type') === 'application/json' ? (JSON.parse(text) as Record<string, unknown>) : {};
  return { status: res.status, text, body: parsed };
}

const NO_GRANTS = { view: { users: [], groups: [] }, change: { users: [], groups: [] } };
const BEN_PERMISSIONS = [
  'view_document',
  'change_document',
  'view_tag',
  'view_correspondent',
  'view_documenttype',
  'view_storagepath',
];

for (const profile of ['3.0', '2.20'] as const) {
  describe(`profile ${profile}: /api/users/ and /api/groups/`, () => {
    let sim: Simulator;
    let limited: string;
    before(async () => {
      sim = await startSimulator({ profile, limitedUser: { permissions: BEN_PERMISSIONS } });
      limited = sim.limitedToken as string;
    });
    after(() => sim.close());

    test('users are listed by lower(username), without "consumer" and "AnonymousUser", in UserSerializer\'s shape', async () => {
      const res = await call(sim, sim.token, 'GET', '/api/users/?page_size=1000');
      assert.equal(res.status, 200);
      const expectedKeys =
        profile === '2.20' ? ['count', 'next', 'previous', 'all', 'results'] : ['count', 'next', 'previous', 'results'];
      assert.deepEqual(Object.keys(res.body), expectedKeys, 'StandardPagination adds `all` below API version 10');
      if (profile === '2.20') assert.deepEqual(res.body.all, [3, 4, 5]);
      const users = res.body.results as Array<Record<string, unknown>>;
      assert.deepEqual(
        users.map((u) => [u.id, u.username]),
        [
          [3, 'anna'],
          [4, 'ben'],
          [5, 'carla'],
        ],
      );
      assert.deepEqual(Object.keys(users[0]), [
        'id',
        'username',
        'email',
        'password',
        'first_name',
        'last_name',
        'date_joined',
        'is_staff',
        'is_active',
        'is_superuser',
        'groups',
        'user_permissions',
        'inherited_permissions',
        'is_mfa_enabled',
      ]);
      const [anna, ben, carla] = users;
      assert.equal(anna.is_superuser, true);
      assert.match(anna.password as string, /^\*{10,}$/);
      assert.ok(
        (anna.inherited_permissions as string[]).includes('documents.change_document'),
        'a superuser holds every permission',
      );
      assert.deepEqual(ben.groups, [1]);
      assert.deepEqual(
        ben.user_permissions,
        ['view_correspondent', 'change_document', 'view_document', 'view_documenttype', 'view_storagepath', 'view_tag'],
        'codenames in Permission order: app, model, codename',
      );
      assert.deepEqual(ben.inherited_permissions, [], 'Family grants no model permissions');
      assert.deepEqual(carla.groups, [2]);
      assert.ok(
        (carla.inherited_permissions as string[]).includes('documents.change_document'),
        'inherited from Accounting',
      );
    });

    test('groups are listed by lower(name) as GroupSerializer renders them', async () => {
      const res = await call(sim, sim.token, 'GET', '/api/groups/?page_size=1000');
      assert.equal(res.status, 200);
      const groups = res.body.results as Array<Record<string, unknown>>;
      assert.deepEqual(
        groups.map((g) => [g.id, g.name]),
        [
          [2, 'Accounting'],
          [1, 'Family'],
        ],
      );
      assert.deepEqual(Object.keys(groups[0]), ['id', 'name', 'permissions']);
      assert.ok((groups[0].permissions as string[]).includes('view_document'));
    });

    test('UserFilterSet and GroupFilterSet: case-insensitive username/name lookups; `ordering` on the name', async () => {
      const names = async (route: string) =>
        ((await call(sim, sim.token, 'GET', route)).body.results as Array<{ username?: string; name?: string }>).map(
          (o) => o.username ?? o.name,
        );
      assert.deepEqual(await names('/api/users/?username__iexact=BEN'), ['ben']);
      assert.deepEqual(await names('/api/users/?username__icontains=AR'), ['carla']);
      assert.deepEqual(await names('/api/users/?username__istartswith=a&username__iendswith=A'), ['anna']);
      assert.deepEqual(await names('/api/users/?ordering=-username'), ['carla', 'ben', 'anna']);
      assert.deepEqual(
        await names('/api/users/?username__iexact='),
        ['anna', 'ben', 'carla'],
        'an empty value filters nothing',
      );
      assert.deepEqual(await names('/api/groups/?name__iexact=family'), ['Family']);
      assert.deepEqual(await names('/api/groups/?id=1'), ['Accounting', 'Family'], 'no id filter in GroupFilterSet');
    });

    test('one user or group by id; hidden and unknown ids are 404 naming the model', async () => {
      const ben = await call(sim, sim.token, 'GET', '/api/users/4/');
      assert.equal(ben.status, 200);
      assert.equal(ben.body.username, 'ben');
      const listed = (await call(sim, sim.token, 'GET', '/api/groups/?name__iexact=accounting')).body
        .results as unknown[];
      assert.deepEqual((await call(sim, sim.token, 'GET', '/api/groups/2/')).body, listed[0]);
      for (const [route, model] of [
        ['/api/users/1/', 'User'],
        ['/api/users/99/', 'User'],
        ['/api/groups/99/', 'Group'],
      ]) {
        const res = await call(sim, sim.token, 'GET', route);
        assert.equal(res.status, 404, route);
        assert.deepEqual(res.body, { detail: `No ${model} matches the given query.` });
      }
    });

    test("a token without view_user / view_group gets DRF's 403", async () => {
      for (const route of ['/api/users/', '/api/groups/', '/api/users/4/']) {
        const res = await call(sim, limited, 'GET', route);
        assert.equal(res.status, 403, route);
        assert.deepEqual(res.body, { detail: 'You do not have permission to perform this action.' });
      }
    });

    test('ui_settings wants view_uisettings from a non-superuser, then names the caller with its groups and its permissions without the app label', async () => {
      const refused = await call(sim, limited, 'GET', '/api/ui_settings/');
      assert.deepEqual(
        [refused.status, refused.body],
        [403, { detail: 'You do not have permission to perform this action.' }],
        'PaperlessObjectPermissions: GET → documents.view_uisettings',
      );
      sim.store.account(4)!.user_permissions.push('view_uisettings');
      const res = await call(sim, limited, 'GET', '/api/ui_settings/');
      assert.deepEqual(res.body.user, {
        id: 4,
        username: 'ben',
        is_staff: false,
        is_superuser: false,
        groups: [1],
        first_name: 'Ben',
        last_name: 'Berger',
      });
      assert.deepEqual(res.body.permissions, [...BEN_PERMISSIONS, 'view_uisettings'].sort());
    });

    test('startSimulator adds users and changes seeded ones by id', async () => {
      const other = await startSimulator({
        profile,
        users: [
          { id: 6, username: 'Dora', email: 'dora@example.org' },
          { id: 5, is_active: false },
        ],
      });
      try {
        const users = (await call(other, other.token, 'GET', '/api/users/')).body.results as Array<
          Record<string, unknown>
        >;
        assert.deepEqual(
          users.map((u) => [u.id, u.username, u.is_active]),
          [
            [3, 'anna', true],
            [4, 'ben', true],
            [5, 'carla', false],
            [6, 'Dora', true],
          ],
        );
        assert.deepEqual(users[2].groups, [2], 'the seeded fields not named stay');
        assert.equal(users[3].email, 'dora@example.org');
      } finally {
        await other.close();
      }
    });

    test('view_user inherited from a group is enough', async () => {
      const other = await startSimulator({
        profile,
        groups: [{ id: 3, name: 'Admins light', permissions: ['view_user', 'view_group'] }],
        limitedUser: { permissions: [], groups: [3] },
      });
      try {
        const res = await call(other, other.limitedToken as string, 'GET', '/api/users/?username__iexact=ben');
        assert.equal(res.status, 200);
        const [ben] = res.body.results as Array<Record<string, unknown>>;
        assert.deepEqual(ben.groups, [3]);
        assert.deepEqual(ben.inherited_permissions, ['auth.view_group', 'auth.view_user']);
        assert.equal((await call(other, other.limitedToken as string, 'GET', '/api/groups/')).body.count, 3);
      } finally {
        await other.close();
      }
    });
  });

  describe(`profile ${profile}: owner and set_permissions on a document`, () => {
    let sim: Simulator;
    let ben: string;
    const patch = (token: string, id: number, body: unknown) =>
      call(sim, token, 'PATCH', `/api/documents/${id}/`, body);
    before(async () => {
      sim = await startSimulator({
        profile,
        limitedUser: { permissions: [...BEN_PERMISSIONS, 'view_customfield', 'delete_document', 'add_note'] },
      });
      ben = sim.limitedToken as string;
    });
    after(() => sim.close());

    test('only the named actions and targets are replaced; a change grant brings view with it', async () => {
      let res = await patch(sim.token, 1, { set_permissions: { view: { users: [4, 5] } } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.permissions, {
        view: { users: [4, 5], groups: [] },
        change: { users: [], groups: [] },
      });
      assert.ok(!('user_can_change' in res.body), 'PATCH answers with full permissions');
      res = await patch(sim.token, 1, { set_permissions: { change: { groups: [2] } } });
      assert.deepEqual(res.body.permissions, {
        view: { users: [4, 5], groups: [2] },
        change: { users: [], groups: [2] },
      });
      res = await patch(sim.token, 1, { set_permissions: { view: { users: [5], groups: [] } } });
      assert.deepEqual(
        res.body.permissions,
        { view: { users: [5], groups: [] }, change: { users: [], groups: [2] } },
        'clearing view keeps change',
      );
      res = await patch(sim.token, 1, { set_permissions: { view: { users: [] }, change: { users: [4] } } });
      assert.deepEqual(
        res.body.permissions,
        { view: { users: [4], groups: [] }, change: { users: [4], groups: [2] } },
        'view first, then change adds view',
      );
    });

    test('full_perms=true renders the stored grants; without it the caller gets user_can_change and is_shared_by_requester', async () => {
      await patch(sim.token, 3, { set_permissions: { view: { groups: [1] } } });
      const full = await call(sim, sim.token, 'GET', '/api/documents/3/?full_perms=yes');
      assert.deepEqual(full.body.permissions, { view: { users: [], groups: [1] }, change: { users: [], groups: [] } });
      assert.ok(!('user_can_change' in full.body) && !('is_shared_by_requester' in full.body));
      const plain = await call(sim, sim.token, 'GET', '/api/documents/3/');
      assert.equal(plain.body.user_can_change, true);
      assert.equal(plain.body.is_shared_by_requester, true, 'anna owns it and shared it');
      assert.ok(!('permissions' in plain.body));
      const unshared = await call(sim, sim.token, 'GET', '/api/documents/4/');
      assert.equal(unshared.body.is_shared_by_requester, false);
      const listed = await call(
        sim,
        sim.token,
        'GET',
        '/api/documents/?id__in=3,4&ordering=id&full_perms=true&fields=id,owner,permissions',
      );
      assert.deepEqual(listed.body.results, [
        { id: 3, owner: 3, permissions: { view: { users: [], groups: [1] }, change: { users: [], groups: [] } } },
        { id: 4, owner: 3, permissions: NO_GRANTS },
      ]);
      const shared = await call(sim, sim.token, 'GET', '/api/documents/?shared_by__id=3&ordering=id&fields=id');
      assert.ok((shared.body.results as Array<{ id: number }>).some((d) => d.id === 3));
      assert.ok(
        !(shared.body.results as Array<{ id: number }>).some((d) => d.id === 4),
        'shared_by__id: owned by the user and granted to someone',
      );
      const asked = await call(sim, sim.token, 'GET', '/api/documents/3/?fields=id,permissions');
      assert.deepEqual(asked.body, { id: 3 }, 'without full_perms `permissions` is not a field');
      const quirk = await call(
        sim,
        sim.token,
        'GET',
        '/api/documents/3/?full_perms=true&fields=id,is_shared_by_requester',
      );
      assert.deepEqual(
        quirk.body,
        { id: 3, is_shared_by_requester: true },
        'the serializer stops dropping at the missing user_can_change',
      );
    });

    test("a note carries its author's BasicUserSerializer fields", async () => {
      const notes = await call(sim, ben, 'POST', '/api/documents/10/notes/', { note: 'gesehen' });
      assert.equal(notes.status, 200);
      const last = (notes.body as unknown as Array<{ user: unknown }>).at(-1);
      assert.deepEqual(last?.user, { id: 4, username: 'ben', first_name: 'Ben', last_name: 'Berger' });
    });

    test('fields= on a PATCH shapes the answer and which keys are read', async () => {
      const res = await call(sim, sim.token, 'PATCH', '/api/documents/9/?fields=id,owner,permissions', {
        owner: 5,
        title: 'nicht gelesen',
      });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { id: 9, owner: 5, permissions: NO_GRANTS });
      assert.notEqual(sim.store.getDocument(9)?.title, 'nicht gelesen');
      await call(sim, sim.token, 'PATCH', '/api/documents/9/', { owner: 3 });
    });

    test('unknown or repeated users and groups are a 400 under set_permissions; nothing changes', async () => {
      const before = (await call(sim, sim.token, 'GET', '/api/documents/5/?full_perms=true')).body;
      for (const [body, message] of [
        [{ view: { users: [99] } }, "Some users in don't exist or were specified twice."],
        [{ view: { users: [4, 4] } }, "Some users in don't exist or were specified twice."],
        [{ change: { users: [4], groups: [7] } }, "Some groups in don't exist or were specified twice."],
      ] as const) {
        const res = await patch(sim.token, 5, { title: 'Neu', set_permissions: body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.deepEqual(res.body, { set_permissions: [message] });
      }
      assert.deepEqual((await patch(sim.token, 5, { set_permissions: [] })).body, {
        set_permissions: ['Expected a dictionary of items but got type "list".'],
      });
      assert.deepEqual((await patch(sim.token, 5, { set_permissions: null })).body, {
        set_permissions: ['This field may not be null.'],
      });
      assert.deepEqual((await call(sim, sim.token, 'GET', '/api/documents/5/?full_perms=true')).body, before);
    });

    test('an unknown owner is a 400; a known one is stored and moves `modified`', async () => {
      const bad = await patch(sim.token, 6, { owner: 99 });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, { owner: ['Invalid pk "99" - object does not exist.'] });
      assert.deepEqual((await patch(sim.token, 6, { owner: 'ben' })).body, {
        owner: ['Incorrect type. Expected pk value, received str.'],
      });
      const modified = sim.store.getDocument(6)?.modified as string;
      const ok = await patch(sim.token, 6, { owner: 5 });
      assert.equal(ok.status, 200);
      assert.equal(ok.body.owner, 5);
      assert.ok((ok.body.modified as string) > modified);
      const ids = async (query: string) =>
        (
          (await call(sim, sim.token, 'GET', `/api/documents/?${query}&ordering=id&fields=id`)).body.results as Array<{
            id: number;
          }>
        ).map((d) => d.id);
      assert.deepEqual(await ids('owner__id__in=5'), [6]);
      assert.deepEqual(await ids('owner__id__none=3'), [6, 7, 10, 13], 'exclude keeps unowned documents');
      assert.deepEqual(
        await ids('owner__id__none=3,x&owner__isnull=true'),
        [7, 10, 13],
        'a bad item makes ObjectFilter ignore the list',
      );
    });

    test('a view grant to its group shows the limited user a document; changing it needs a change grant', async () => {
      assert.equal((await call(sim, ben, 'GET', '/api/documents/2/')).status, 404);
      await patch(sim.token, 2, { set_permissions: { view: { groups: [1] } } });
      const seen = await call(sim, ben, 'GET', '/api/documents/2/');
      assert.equal(seen.status, 200);
      assert.equal(seen.body.user_can_change, false);
      assert.equal(seen.body.is_shared_by_requester, false, 'shared, but not by ben');
      const ids = (await call(sim, ben, 'GET', '/api/documents/?ordering=id&fields=id&page_size=100')).body
        .results as Array<{ id: number }>;
      assert.ok(ids.some((d) => d.id === 2));
      const refused = await patch(ben, 2, { title: 'von Ben' });
      assert.equal(refused.status, 403);
      assert.deepEqual(refused.body, { detail: 'You do not have permission to perform this action.' });
      assert.equal(
        (await call(sim, ben, 'DELETE', '/api/documents/2/')).status,
        403,
        'delete_document is not enough without a delete grant',
      );
      assert.ok(sim.store.getDocument(2));
      await patch(sim.token, 2, { set_permissions: { change: { groups: [1] } } });
      const changed = await patch(ben, 2, { title: 'von Ben' });
      assert.equal(changed.status, 200, changed.text);
      assert.equal(changed.body.title, 'von Ben');
      assert.equal((await call(sim, ben, 'GET', '/api/documents/2/')).body.user_can_change, true);
    });

    test('a non-owner may not give the document away or share it: 403 Insufficient permissions, nothing stored', async () => {
      await patch(sim.token, 8, { set_permissions: { change: { users: [4] } } });
      const giveAway = await patch(ben, 8, { owner: 4, title: 'meins' });
      assert.equal(giveAway.status, 403);
      assert.deepEqual(giveAway.body, { detail: 'Insufficient permissions.' });
      const share = await patch(ben, 8, { set_permissions: { view: { users: [5] } } });
      assert.equal(share.status, 403);
      assert.deepEqual(share.body, { detail: 'Insufficient permissions.' });
      assert.equal(sim.store.getDocument(8)?.owner, 3);
      assert.notEqual(sim.store.getDocument(8)?.title, 'meins');
      const invalidFirst = await patch(ben, 8, { owner: 99 });
      assert.equal(invalidFirst.status, 400, 'validation comes before the permission check');
      const sameOwner = await patch(ben, 8, { owner: 3, title: 'gleicher Besitzer' });
      assert.equal(sameOwner.status, 200, 'resending the current owner is no change');
      const unowned = await patch(ben, 7, { owner: 4, set_permissions: { view: { users: [5] } } });
      assert.equal(unowned.status, 200, 'anyone who may change an unowned document may claim it');
      assert.equal(unowned.body.owner, 4);
    });
  });

  describe(`profile ${profile}: bulk edit set_permissions`, () => {
    let sim: Simulator;
    const bulk = (token: string, documents: number[], parameters: Record<string, unknown>) =>
      call(sim, token, 'POST', '/api/documents/bulk_edit/', { documents, method: 'set_permissions', parameters });
    const perms = (id: number) => sim.store.grants.get(id);
    before(async () => {
      sim = await startSimulator({ profile, limitedUser: { permissions: BEN_PERMISSIONS } });
    });
    after(() => sim.close());

    test('without merge every document gets the owner (none when absent) and exactly the named sets', async () => {
      await call(sim, sim.token, 'PATCH', '/api/documents/1/', { set_permissions: { view: { users: [5] } } });
      const res = await bulk(sim.token, [1, 7], {
        set_permissions: { view: { users: [4] }, change: { groups: [2] } },
        owner: 5,
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { result: 'OK' });
      for (const id of [1, 7]) {
        assert.equal(sim.store.getDocument(id)?.owner, 5);
        assert.deepEqual(perms(id), { view: { users: [4], groups: [2] }, change: { users: [], groups: [2] } });
      }
      await bulk(sim.token, [7], { set_permissions: {} });
      assert.equal(sim.store.getDocument(7)?.owner, null, 'no owner given: the owner is cleared');
    });

    test('with merge only unowned documents get the owner and grants are only added', async () => {
      const res = await bulk(sim.token, [1, 7], { set_permissions: { view: { users: [3] } }, owner: 4, merge: true });
      assert.equal(res.status, 200, res.text);
      assert.equal(sim.store.getDocument(1)?.owner, 5);
      assert.equal(sim.store.getDocument(7)?.owner, 4);
      assert.deepEqual(perms(1), { view: { users: [3, 4], groups: [2] }, change: { users: [], groups: [2] } });
    });

    test("bad ids are the serializer's 400; a non-owner gets the plain-text 403", async () => {
      const bad = await bulk(sim.token, [1], { set_permissions: { view: { groups: [9] } } });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, { non_field_errors: ["Some groups in don't exist or were specified twice."] });
      const limited = sim.limitedToken as string;
      const refused = await bulk(limited, [10], { set_permissions: { view: { users: [5] } }, owner: 4 });
      assert.equal(refused.status, 200, 'document 10 is unowned: ben may');
      const notOwner = await bulk(limited, [10, 13], { set_permissions: { view: { users: [4] } }, owner: 4 });
      assert.equal(notOwner.status, 200, 'ben owns 10 now, 13 is unowned');
      await call(sim, sim.token, 'PATCH', '/api/documents/13/', {
        owner: 3,
        set_permissions: { change: { users: [4] } },
      });
      const denied = await bulk(limited, [13], { set_permissions: { view: { users: [5] } }, owner: 4 });
      assert.equal(denied.status, 403);
      assert.equal(denied.text, 'Insufficient permissions');
      assert.equal(sim.store.getDocument(13)?.owner, 3);
    });
  });
}
