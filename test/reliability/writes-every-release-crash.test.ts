import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { startSimulator } from '../../tools/paperless-sim/simulator.js';
import type { EventRecord } from '../../server/history/event-types.js';
import { startChildServer } from '../helpers/child-server.js';
import { PROFILES, behaviourOfProfile, releaseOf } from '../helpers/profiles.js';
import { API_TOKEN, call, startTestServer, tempDir, type TestServer } from '../helpers/test-server.js';
import { bulkEdits, patches, waitForEvent } from '../api/support/jobs-kit.js';

// kill -9 while a writing job's first bulk edit is at the dms, on every release profile: after the restart the job
// is interrupted, the next job finishes every document exactly as planned (no half-written custom fields, no second
// note), and the one after writes nothing. Seed: invoices 1, 2, 5, 10; tag 5 "Steuer 2025" is a child of 4 from 2.19.

const RULES = `
rules:
  - id: check-invoices
    on: [manual]
    when: { document_type: Rechnung }
    actions:
      - add_tags: [Steuer 2025]
      - add_custom_fields: [Siehe auch]
      - set_custom_fields: { Rechnungsnummer: geprüft }
      - add_note: Geprüft
`;
const INVOICES = [1, 2, 5, 10];

async function job(url: string, query: string): Promise<EventRecord> {
  const res = await call<{ event_id: number }>(url, `/api/run?${query}`, { method: 'POST', token: API_TOKEN });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return waitForEvent(url, res.body.event_id);
}

describe('kill -9 during a writing job, on every release', () => {
  for (const profile of PROFILES) {
    test(`Paperless-ngx ${releaseOf(profile)} (profile ${profile}): interrupted, then finished once, then nothing left`, async () => {
      const sim = await startSimulator({ profile });
      const link = sim.store.insertObject('custom_fields', {
        name: 'Siehe auch',
        data_type: 'documentlink',
        extra_data: { select_options: [], default_currency: null },
      }).id;
      const dataDir = tempDir();
      const rulesDir = tempDir();
      fs.writeFileSync(path.join(rulesDir, 'rules.yml'), RULES);
      const child = await startChildServer({
        SVC_DATA_DIR: dataDir,
        SVC_RULES_DIR: rulesDir,
        SVC_DMS_URL: sim.url,
        SVC_DMS_TOKEN: sim.token,
      });
      let restarted: TestServer | undefined;
      try {
        const hold = sim.faults.inject({ route: 'POST /api/documents/bulk_edit/', kind: 'hold', times: 1 });
        const started = await call<{ event_id: number }>(child.url, '/api/run?rule_id=check-invoices&dry_run=false', {
          method: 'POST',
          token: API_TOKEN,
        });
        assert.equal(started.status, 200, JSON.stringify(started.body));
        // Wait for the held write (a `times: 1` fault leaves the list once hit), or fail if the job ended without one.
        while (sim.faults.list().some((f) => f.id === hold.id)) {
          const event = await call<EventRecord>(child.url, `/api/events/${started.body.event_id}`, {
            token: API_TOKEN,
          });
          assert.ok(
            ['queued', 'running'].includes(event.body.status),
            `no bulk edit held: ${JSON.stringify(event.body)}`,
          );
          await new Promise((r) => setTimeout(r, 5));
        }
        await child.kill('SIGKILL');
        // The dms finishes the write the service no longer waits for, as a real one would.
        sim.faults.release(hold.id);

        restarted = await startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token }, { dataDir, rulesDir });
        const cut = await waitForEvent(restarted.url, started.body.event_id);
        assert.equal(cut.status, 'interrupted', JSON.stringify(cut));

        const rest = await job(restarted.url, 'rule_id=check-invoices&dry_run=false');
        assert.deepEqual([rest.status, rest.errors], ['done', 0], JSON.stringify(rest));
        for (const id of INVOICES) {
          const doc = sim.store.getDocument(id)!;
          const fields = Object.fromEntries(doc.custom_fields.map((cf) => [cf.field, cf.value]));
          assert.equal(fields[4], 'geprüft', `document ${id}: ${JSON.stringify(fields)}`);
          assert.equal(fields[link], null, `document ${id}: the link field is attached empty`);
          assert.ok(
            doc.tags.includes(5) && doc.tags.includes(4) === (behaviourOfProfile(profile).tagHierarchy || id === 5),
          );
          assert.deepEqual(
            doc.notes.map((n) => n.note).filter((n) => n === 'Geprüft'),
            ['Geprüft'],
            `document ${id}: one note`,
          );
        }

        sim.resetCounts();
        const none = await job(restarted.url, 'rule_id=check-invoices&dry_run=false');
        assert.deepEqual([none.status, none.changed], ['done', 0], JSON.stringify(none));
        assert.equal(patches(sim) + bulkEdits(sim) + (sim.counts()['POST /api/documents/{id}/notes/'] ?? 0), 0);
      } finally {
        await child.kill();
        await restarted?.close();
        await sim.close();
      }
    });
  }
});
