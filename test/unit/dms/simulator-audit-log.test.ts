import '../../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import { PROFILES, behaviourOfProfile } from '../../helpers/profiles.js';
import { startSimulator, type Simulator } from '../../../tools/paperless-sim/simulator.js';

// Seed: anna (3) superuser owns most documents; 7, 10 and 13 are unowned. carla (5) is in Accounting
// (view everything she may see, change_document, add_note). Tags 2 Rechnung, 3 bezahlt, 6 Vertrag; custom field 4
// Rechnungsnummer (string).

interface Entry {
  id: number;
  timestamp: string;
  action: string;
  changes: Record<string, unknown>;
  actor: { id: number; username: string } | null;
}

for (const profile of PROFILES) {
  const rereads = behaviourOfProfile(profile).v3Fields;
  const instanceSaveMoves = behaviourOfProfile(profile).instanceSaveMovesModified;
  describe(`profile ${profile}: the audit log (GET /api/documents/{id}/history/)`, () => {
    let sim: Simulator;
    let receiver: http.Server;
    let hooked: number[] = [];
    const call = async (method: string, route: string, body?: unknown, token = sim.token) => {
      const res = await fetch(sim.url + route, {
        method,
        headers: {
          authorization: `Token ${token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      const json = (
        (res.headers.get('content-type') ?? '').includes('json') && text ? JSON.parse(text) : null
      ) as Record<string, unknown> & unknown[];
      return { status: res.status, text, json, type: res.headers.get('content-type') ?? '' };
    };
    const history = async (id: number, token = sim.token) =>
      (await call('GET', `/api/documents/${id}/history/`, undefined, token)).json as unknown as Entry[];

    before(async () => {
      receiver = http.createServer((req, res) => {
        let raw = '';
        req.on('data', (c: Buffer) => (raw += c.toString()));
        req.on('end', () => {
          const body = JSON.parse(raw) as { doc_url: string };
          hooked.push(Number(body.doc_url.split('/').at(-2)));
          res.end('ok');
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    });
    after(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
    beforeEach(async () => {
      // The last test's webhooks are still on their way: let them land before `hooked` starts afresh.
      await sim?.webhooksIdle();
      await sim?.close();
      sim = await startSimulator({ profile });
      sim.setWorkflowWebhook({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`, echoDelayMs: 0 });
      hooked = [];
    });
    after(() => sim.close());

    test('a PATCH logs the changed fields as strings for the token user, tags as m2m entries by name, never modified; newest first', async () => {
      assert.deepEqual(await history(3), [], 'a fixture document starts with no entries');
      await call('PATCH', '/api/documents/3/', { title: 'Neu', archive_serial_number: 77, tags: [9, 7, 6, 2] });
      await call('PATCH', '/api/documents/3/', { tags: [9, 7, 2] });
      const entries = await history(3);
      assert.deepEqual(
        entries.map((e) => e.changes),
        [
          { tags: { type: 'm2m', operation: 'delete', objects: ['Vertrag'] } },
          { tags: { type: 'm2m', operation: 'add', objects: ['Rechnung'] } },
          { title: ['Kfz-Versicherung Police 2025', 'Neu'], archive_serial_number: ['98', '77'] },
        ],
        'modified moved too, and is not logged',
      );
      assert.ok(entries.every((e) => e.action === 'update' && e.actor?.username === 'anna' && e.actor.id === 3));
      assert.match(entries[0].timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      assert.ok(entries[0].timestamp > entries[1].timestamp && entries[1].timestamp > entries[2].timestamp);
      await call('PATCH', '/api/documents/3/', { title: 'Neu' });
      assert.equal((await history(3)).length, 3, 'a PATCH that changes nothing logs nothing');
    });

    test('custom-field instances log {type, field, value} from their repr; a removed field takes its entries along', async () => {
      await call('PATCH', '/api/documents/3/', { custom_fields: [{ field: 4, value: 'R-1' }] });
      await call('PATCH', '/api/documents/3/', { custom_fields: [{ field: 4, value: 'R-2' }] });
      const entries = await history(3);
      assert.deepEqual(
        entries.map((e) => [e.action, e.changes]),
        [
          ['update', { custom_fields: { type: 'custom_field', field: 'Rechnungsnummer', value: 'R-2' } }],
          ['create', { custom_fields: { type: 'custom_field', field: 'Rechnungsnummer', value: 'R-1' } }],
        ],
      );
      await call('PATCH', '/api/documents/3/', { custom_fields: [] });
      assert.deepEqual(
        await history(3),
        [],
        'the deleted instance is no longer the document’s: Paperless shows none of its entries',
      );
    });

    test('a bulk edit logs one entry per document (changed or not) for the user, with old value from .values() and the new list; its task moves modified after the answer', async () => {
      const before = [3, 4].map((id) => sim.store.getDocument(id)!.modified);
      sim.setTasks({ hold: true });
      assert.equal(
        (
          await call('POST', '/api/documents/bulk_edit/', {
            documents: [3, 4],
            method: 'add_tag',
            parameters: { tag: 4 },
          })
        ).status,
        200,
      );
      assert.deepEqual(
        [3, 4].map((id) => sim.store.getDocument(id)!.modified),
        before,
        'queryset updates within the request: modified has not moved when the answer comes',
      );
      assert.deepEqual(sim.pendingTasks(), ['bulk_update_documents']);
      sim.releaseTasks();
      sim.setTasks(null);
      assert.notEqual(sim.store.getDocument(3)!.modified, before[0], 'the task’s post_save moved it');
      assert.equal(sim.store.getDocument(4)!.modified, before[1], 'document 4 already had the tag: not affected');
      assert.ok(
        sim.store.audit.entries
          .filter((e) => e.document === 3)
          .every((e) => e.timestamp < sim.store.getDocument(3)!.modified),
        'the bulk entry is stamped before the task moves modified',
      );
      const [entry] = await history(4);
      assert.deepEqual(entry.changes, { tags: [4, [4]] }, 'document 4 held only tag 4: unchanged, logged all the same');
      assert.equal(entry.actor?.username, 'anna');
      const [three] = await history(3);
      assert.deepEqual(
        three.changes,
        { tags: [9, [9, 4, 7, 6]] },
        'old: one id of the joined rows; new: the tag pks by name (rules-processed, Steuer, Versicherung, Vertrag)',
      );
      const stored = sim.store.audit.entries.filter((e) => e.document === 3);
      assert.deepEqual(
        stored.at(-1)?.additional_data,
        { reason: 'Bulk edit: add_tag' },
        'kept in the log, not in the history answer',
      );
      assert.ok(!('additional_data' in three));

      const correspondent = sim.store.getDocument(3)!.correspondent;
      await call('POST', '/api/documents/bulk_edit/', {
        documents: [3],
        method: 'set_correspondent',
        parameters: { correspondent: 2 },
      });
      assert.deepEqual((await history(3))[0].changes, { correspondent: [correspondent, 2] }, 'raw pks, not strings');
      const count = (await history(3)).length;
      await call('POST', '/api/documents/bulk_edit/', {
        documents: [3],
        method: 'set_permissions',
        parameters: { set_permissions: { view: { users: [5] } } },
      });
      assert.equal((await history(3)).length, count, 'object permissions are not in the audit log');
    });

    test('bulk modify_custom_fields logs the values it stores without actor for a token request, and its own custom_fields entry of instance pks for the user', async () => {
      const modified = sim.store.getDocument(3)!.modified;
      sim.setTasks({ hold: true });
      await call('POST', '/api/documents/bulk_edit/', {
        documents: [3],
        method: 'modify_custom_fields',
        parameters: { add_custom_fields: { 4: 'B-1' }, remove_custom_fields: [] },
      });
      const inRequest = sim.store.getDocument(3)!.modified;
      sim.releaseTasks();
      sim.setTasks(null);
      const entries = await history(3);
      assert.equal(entries.length, 2);
      assert.deepEqual(entries[0].changes.custom_fields, [
        null,
        [(entries[0].changes.custom_fields as [null, number[]])[1][0]],
      ]);
      assert.equal(entries[0].actor?.username, 'anna', 'BulkEditView.post: actor=user');
      assert.deepEqual(entries[1].changes, {
        custom_fields: { type: 'custom_field', field: 'Rechnungsnummer', value: 'B-1' },
      });
      assert.equal(entries[1].actor, null, 'update_or_create outside set_actor');
      if (instanceSaveMoves) {
        assert.ok(inRequest > entries[1].timestamp, 'before 2.20.2 the instance’s post_save moves modified at once');
      } else assert.equal(inRequest, modified, 'from 2.20.2 only the task moves it');
      assert.ok(sim.store.getDocument(3)!.modified > inRequest, 'and the task moves it again');
    });

    test('a PATCH’s entries and modified: the document entry before the save, custom-field entries after it (before 2.20.2 followed by another move)', async () => {
      await call('PATCH', '/api/documents/3/', { title: 'Zeitfolge', custom_fields: [{ field: 4, value: 'Z-1' }] });
      const modified = sim.store.getDocument(3)!.modified;
      const [title, field] = sim.store.audit.entries.filter((e) => e.document === 3);
      assert.deepEqual([title.instance, field.instance !== null], [null, true]);
      assert.ok(title.timestamp < field.timestamp, 'the reverse relation is saved after the document');
      assert.ok(title.timestamp < modified, 'pre_save: stamped before the save’s modified');
      assert.equal(
        field.timestamp < modified,
        instanceSaveMoves,
        instanceSaveMoves
          ? 'the instance’s post_save moved modified after its entry'
          : 'nothing moves modified after it',
      );
    });

    test('the PATCH answer’s modified: on 3.0 the stored one, on 2.x the instance’s in memory, one move behind', async () => {
      const answer = await call('PATCH', '/api/documents/3/', { title: 'Antwort', tags: [2] });
      const stored = (await call('GET', '/api/documents/3/')).json.modified as string;
      if (rereads) assert.equal(answer.json.modified, stored, 'read again after the save');
      else assert.ok((answer.json.modified as string) < stored, 'update_filename_and_move_files moved it after');
    });

    test('a PATCH that leaves a link field out unmirrors before set_actor: the target’s entry has no actor', async () => {
      const field = (await call('POST', '/api/custom_fields/', { name: 'Verweis', data_type: 'documentlink' })).json
        .id as number;
      await call('PATCH', '/api/documents/3/', { custom_fields: [{ field, value: [8] }] });
      await call('PATCH', '/api/documents/3/', { custom_fields: [] });
      assert.deepEqual(sim.store.getDocument(8)!.custom_fields, [{ value: [], field }]);
      const [removal] = await history(8);
      assert.equal(removal.actor, null, 'remove_doclink runs in DocumentSerializer.update before set_actor');
    });

    test('a note moves modified, fires no webhook, is logged without actor for a token request, and needs change permission (403 text)', async () => {
      const carla = sim.tokenFor('carla');
      const modified = sim.store.getDocument(7)!.modified;
      const added = await call('POST', '/api/documents/7/notes/', { note: 'von Carla' }, carla);
      assert.equal(added.status, 200);
      assert.notEqual(sim.store.getDocument(7)!.modified, modified);
      const noteId = (added.json as Array<{ id: number }>).at(-1)!.id;
      const [entry] = await history(7);
      assert.deepEqual(entry.changes, { 'Note Added': ['None', noteId] });
      assert.equal(entry.actor, null, 'log_create without actor: the middleware saw no user before DRF read the token');
      assert.deepEqual(
        (added.json as Array<{ user: { id: number } }>).at(-1)!.user.id,
        5,
        'the note itself is by carla',
      );
      assert.ok(sim.store.audit.entries.at(-1)!.timestamp < sim.store.getDocument(7)!.modified, 'logged, then saved');
      sim.addNoteAs(7, 'im Browser', 'carla');
      assert.deepEqual((await history(7))[0].actor, { id: 5, username: 'carla' }, 'a browser session names the person');

      // carla may see document 8 (a view grant) but not change it.
      sim.store.grants.set(8, { view: { users: [5], groups: [] }, change: { users: [], groups: [] } });
      const refused = await call('POST', '/api/documents/8/notes/', { note: 'nein' }, carla);
      assert.equal(refused.status, 403);
      assert.equal(refused.text, 'Insufficient permissions to create notes');
      assert.equal((await call('DELETE', `/api/documents/8/notes/?id=1`, undefined, carla)).status, 403);
      await sim.webhooksIdle();
      assert.deepEqual(hooked, [], 'notes fire no workflow');
    });

    test('a person with their own token, a person behind the service’s back and a workflow each appear as who they are', async () => {
      const carla = sim.tokenFor('carla');
      assert.equal((await call('PATCH', '/api/documents/10/', { title: 'Carla war hier' }, carla)).status, 200);
      assert.equal(
        (
          await call(
            'POST',
            '/api/documents/bulk_edit/',
            { documents: [10], method: 'add_tag', parameters: { tag: 3 } },
            carla,
          )
        ).status,
        200,
      );
      sim.editAs(10, { archive_serial_number: 4711 }, 'ben');
      sim.editAs(10, { title: 'Vom Workflow' }, null);
      sim.addNoteAs(10, 'Workflow-Notiz', null);
      const control = await fetch(`${sim.url}/__sim/documents/10`, {
        method: 'PATCH',
        headers: { authorization: `Token ${sim.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ changes: { title: 'Per Kontrollroute' }, actor: 'carla' }),
      });
      assert.equal(control.status, 200);
      const actors = (await history(10)).map((e) => e.actor?.username ?? null);
      assert.deepEqual(actors, ['carla', null, null, 'ben', 'carla', 'carla']);
      await sim.webhooksIdle();
      assert.deepEqual(
        hooked,
        [10, 10, 10, 10],
        'the two PATCHes, the bulk edit and ben’s edit fire; the workflow’s save and note do not',
      );
    });

    test('the PATCH answer is read after the save: on 3.0 a person’s change at that moment is in it, on 2.x only its tags', async () => {
      sim.duringNextWrite(10, { title: 'Von Carla, gleichzeitig', tags: [3] }, 'carla');
      const res = await call('PATCH', '/api/documents/10/', { archive_serial_number: 99 });
      assert.equal(res.json.title, rereads ? 'Von Carla, gleichzeitig' : 'Telekom Rechnung März 2025');
      assert.deepEqual(res.json.tags, [3], 'tags are read again on every release');
      assert.equal(res.json.archive_serial_number, 99);
      assert.deepEqual(
        (await history(10)).map((e) => [e.actor?.username, Object.keys(e.changes)]),
        [
          ['carla', ['tags']],
          ['carla', ['tags']],
          ['carla', ['title']],
          ['anna', ['archive_serial_number']],
        ],
      );
    });

    test('the /__sim/ control routes: a token per user, notes and edits as a person or a workflow, a change inside the next write, the audit-log switch', async () => {
      const control = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${sim.url}/__sim/${path}`, {
          method,
          headers: { authorization: `Token ${sim.token}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        return { status: res.status, json: (text ? JSON.parse(text) : null) as Record<string, unknown> };
      };
      const { token } = (await control('GET', 'tokens/carla')).json as { token: string };
      const refused = await call('GET', '/api/ui_settings/', undefined, token);
      assert.deepEqual(
        [refused.status, refused.json],
        [403, { detail: 'You do not have permission to perform this action.' }],
        'UiSettingsView wants documents.view_uisettings from a non-superuser',
      );
      sim.store.groups.find((g) => g.id === 2)!.permissions.push('view_uisettings');
      const settings = (await call('GET', '/api/ui_settings/', undefined, token)).json as unknown as {
        user: { username: string };
      };
      assert.equal(settings.user.username, 'carla');
      assert.equal((await control('POST', 'documents/10/notes', { note: 'Workflow', actor: null })).status, 201);
      assert.equal(
        (await control('PATCH', 'documents/10', { changes: { title: 'x'.repeat(129) }, actor: 'carla' })).status,
        400,
        'validated like a PATCH',
      );
      assert.equal(
        (await control('POST', 'documents/10/during-next-write', { changes: { title: 'Gleichzeitig' }, actor: 'ben' }))
          .status,
        204,
      );
      await call('PATCH', '/api/documents/10/', { archive_serial_number: 5 });
      assert.equal(sim.store.getDocument(10)!.title, 'Gleichzeitig');
      assert.deepEqual(
        (await history(10)).map((e) => e.actor?.username ?? null),
        ['ben', 'anna', null],
      );
      assert.equal((await control('PUT', 'audit-log', { enabled: false })).status, 204);
      assert.equal((await call('GET', '/api/documents/10/history/')).status, 400);
    });

    test('audit log off → 400 text; a non-superuser needs view_logentry and must own the document (or it is unowned) → else 403 text', async () => {
      const carla = sim.tokenFor('carla');
      const forbidden = await call('GET', '/api/documents/10/history/', undefined, carla);
      assert.deepEqual([forbidden.status, forbidden.text], [403, 'Insufficient permissions']);
      sim.store.groups.find((g) => g.id === 2)!.permissions.push('view_logentry');
      assert.equal((await call('GET', '/api/documents/10/history/', undefined, carla)).status, 200, 'unowned');
      sim.store.grants.set(8, { view: { users: [5], groups: [] }, change: { users: [5], groups: [] } });
      assert.equal(
        (await call('GET', '/api/documents/8/history/', undefined, carla)).status,
        403,
        'owned by anna, even with grants',
      );
      assert.equal((await call('GET', '/api/documents/999/history/')).status, 404);

      sim.setAuditLog(false);
      const off = await call('GET', '/api/documents/10/history/');
      assert.deepEqual([off.status, off.text], [400, 'Audit log is disabled']);
      await call('PATCH', '/api/documents/10/', { title: 'unlogged' });
      sim.setAuditLog(true);
      assert.deepEqual(await history(10), [], 'nothing was logged while it was off');
    });

    test('document links are mirrored onto the target (its modified moves, no webhook, no entry) and unmirrored when dropped', async () => {
      const field = (await call('POST', '/api/custom_fields/', { name: 'Siehe auch', data_type: 'documentlink' })).json
        .id as number;
      const targetModified = sim.store.getDocument(8)!.modified;
      await call('PATCH', '/api/documents/3/', { custom_fields: [{ field, value: [8] }] });
      assert.deepEqual(sim.store.getDocument(8)!.custom_fields, [{ value: [3], field }]);
      assert.notEqual(sim.store.getDocument(8)!.modified, targetModified);
      assert.deepEqual(await history(8), [], 'bulk_create logs nothing on the target');

      await call('PATCH', '/api/documents/3/', { custom_fields: [{ field, value: [] }] });
      assert.deepEqual(sim.store.getDocument(8)!.custom_fields, [{ value: [], field }]);
      const [removal] = await history(8);
      assert.deepEqual(
        [removal.action, removal.actor?.username, removal.changes],
        ['update', 'anna', { custom_fields: { type: 'custom_field', field: 'Siehe auch', value: '[]' } }],
      );

      await call('POST', '/api/documents/bulk_edit/', {
        documents: [4],
        method: 'modify_custom_fields',
        parameters: { add_custom_fields: { [field]: [9] }, remove_custom_fields: [] },
      });
      assert.deepEqual(sim.store.getDocument(9)!.custom_fields, [{ value: [4], field }]);
      await call('POST', '/api/documents/bulk_edit/', {
        documents: [4],
        method: 'modify_custom_fields',
        parameters: { add_custom_fields: {}, remove_custom_fields: [field] },
      });
      assert.deepEqual(sim.store.getDocument(9)!.custom_fields, [{ value: [], field }]);
      await sim.webhooksIdle();
      assert.deepEqual(hooked, [3, 3, 4, 4], 'only the written documents fire; mirrored targets never do');
    });
  });
}
