import '../../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import { after, beforeEach, describe, test } from 'node:test';
import {
  DmsAuditLogOffError,
  DmsHistoryForbiddenError,
  MAX_HISTORY_ENTRIES,
} from '../../../server/dms/document-history.js';
import { DmsError, DmsNotFoundError } from '../../../server/dms/dms-errors.js';
import { createPaperlessClient } from '../../../server/dms/paperless-client.js';
import { startSimulator, type Simulator } from '../../../tools/paperless-sim/simulator.js';
import type { DmsClient } from '../../../server/dms/types.js';
import { PROFILES } from '../../helpers/profiles.js';

// The service's token is anna's (superuser, id 3); carla (5) is an ordinary user of the Accounting group.

for (const profile of PROFILES) {
  describe(`the client reads who changed a document (profile ${profile})`, () => {
    let sim: Simulator;
    let dms: DmsClient;
    const clients: DmsClient[] = [];
    const clientFor = (token: string) => {
      const client = createPaperlessClient({ url: sim.url, token, retries: 0 });
      clients.push(client);
      return client;
    };
    beforeEach(async () => {
      await Promise.all(clients.splice(0).map((c) => c.close()));
      await sim?.close();
      sim = await startSimulator({ profile });
      dms = clientFor(sim.token);
    });
    after(async () => {
      await Promise.all(clients.map((c) => c.close()));
      await sim.close();
    });

    test('documentHistory: the service’s own write, a person’s and a workflow’s, newest first, each with its actor as Paperless logs it', async () => {
      await dms.updateDocument(10, { title: 'Vom Dienst' });
      await clientFor(sim.tokenFor('carla')).addNote(10, 'Bitte prüfen');
      sim.addNoteAs(10, 'Im Browser', 'carla');
      sim.editAs(10, { archive_serial_number: 501 }, null);
      const { entries, truncated } = await dms.documentHistory(10);
      assert.equal(truncated, false);
      assert.deepEqual(
        entries.map((e) => [e.actor?.username ?? null, e.action, Object.keys(e.changes)]),
        [
          [null, 'update', ['archive_serial_number']],
          ['carla', 'update', ['Note Added']],
          [null, 'update', ['Note Added']],
          ['anna', 'update', ['title']],
        ],
        'a note added with a token names no actor; one added in a browser session names the person',
      );
      assert.deepEqual(entries[3].changes.title, ['Telekom Rechnung März 2025', 'Vom Dienst']);
      assert.deepEqual(entries[1].actor, { id: 5, username: 'carla' });
    });

    test('audit log off is DmsAuditLogOffError; no view_logentry is DmsHistoryForbiddenError; a missing document DmsNotFoundError', async () => {
      await assert.rejects(clientFor(sim.tokenFor('carla')).documentHistory(10), (err: unknown) => {
        assert.ok(err instanceof DmsHistoryForbiddenError);
        assert.equal(err.dmsStatus, 403);
        assert.match(err.message, /auditlog\.view_logentry/);
        return true;
      });
      await assert.rejects(dms.documentHistory(999), DmsNotFoundError);
      sim.setAuditLog(false);
      await assert.rejects(dms.documentHistory(10), (err: unknown) => {
        assert.ok(err instanceof DmsAuditLogOffError);
        assert.ok(err instanceof DmsError);
        assert.match(err.message, /audit log is switched off/);
        return true;
      });
    });

    test(`a long history is cut to the newest ${MAX_HISTORY_ENTRIES} entries and says so`, async () => {
      for (let i = 0; i <= MAX_HISTORY_ENTRIES; i++)
        sim.editAs(7, { title: `Version ${i}` }, 'ben', { webhook: false });
      const { entries, truncated } = await dms.documentHistory(7);
      assert.equal(truncated, true);
      assert.equal(entries.length, MAX_HISTORY_ENTRIES);
      assert.deepEqual(
        entries[0].changes.title,
        [`Version ${MAX_HISTORY_ENTRIES - 1}`, `Version ${MAX_HISTORY_ENTRIES}`],
        'the newest is kept',
      );
    });

    test('serviceUser names the token’s Paperless user, whether the audit log is on and whether it may read histories', async () => {
      assert.deepEqual(await dms.serviceUser(), {
        id: 3,
        username: 'anna',
        superuser: true,
        auditLogEnabled: true,
        mayReadHistory: true,
      });
      const carla = clientFor(sim.tokenFor('carla'));
      await assert.rejects(carla.serviceUser(), /403/, 'ui_settings wants view_uisettings from a non-superuser');
      sim.store.groups.find((g) => g.id === 2)!.permissions.push('view_uisettings');
      assert.deepEqual(await carla.serviceUser(), {
        id: 5,
        username: 'carla',
        superuser: false,
        auditLogEnabled: true,
        mayReadHistory: false,
      });
      sim.store.groups.find((g) => g.id === 2)!.permissions.push('view_logentry');
      assert.equal((await carla.serviceUser()).mayReadHistory, true);
      assert.equal(
        (await carla.documentHistory(10)).entries.length,
        0,
        'with the permission, an unowned document’s history is readable',
      );
      sim.setAuditLog(false);
      assert.equal((await dms.serviceUser()).auditLogEnabled, false);
    });
  });
}
