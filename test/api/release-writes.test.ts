import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../../server/dms/simulator/simulator.js';
import { PROFILES, behaviourOfProfile } from '../helpers/profiles.js';
import type { TestServer } from '../helpers/test-server.js';
import { runReal, serverWithRules } from './support/real-run-kit.js';

// Writes whose wire form depends on the release, through the real app: every profile ends with what the rule meant.
// Seed: document 7 is a scan; tag 5 "Steuer 2025" is a child of 4 "Steuer" from 2.19.0; field 4 Rechnungsnummer.

const RULES = `
rules:
  - id: scan-filing
    description: Files the scan and empties its link
    when: { original_file_name: { starts_with: Scan_ } }
    actions:
      - add_tags: [Steuer 2025]
      - set_custom_fields: { Rechnungsnummer: R-1, Siehe auch: "" }
`;

for (const name of PROFILES) {
  const hierarchy = behaviourOfProfile(name).tagHierarchy;
  describe(`release-dependent writes through the app (profile ${name})`, () => {
    let sim: Simulator;
    let server: TestServer;
    before(async () => {
      sim = await startSimulator({ profile: name });
      const link = sim.store.insertObject('custom_fields', {
        name: 'Siehe auch',
        data_type: 'documentlink',
        extra_data: { select_options: [], default_currency: null },
      });
      sim.store.getDocument(7)!.custom_fields = [{ field: link.id, value: [8] }];
      server = await serverWithRules(sim, sim.token, RULES);
    });
    after(async () => {
      await server?.close();
      await sim?.close();
    });

    it(`stores the emptied link and the other field together, and the tag ${hierarchy ? 'with its parent' : 'alone (no tag tree before 2.19)'}; a second run writes nothing`, async () => {
      const res = await runReal(server, 7);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(
        res.body.traces.map((t) => [t.rule_id, t.status, t.error]),
        [['scan-filing', 'matched', null]],
      );
      const doc = sim.store.getDocument(7)!;
      const link = sim.store.objects.custom_fields.find((f) => f.name === 'Siehe auch')!.id;
      assert.deepEqual(
        doc.custom_fields.map((cf) => [cf.field, cf.value]).sort(),
        [
          [4, 'R-1'],
          [link, null],
        ].sort(),
      );
      assert.deepEqual(doc.tags.filter((t) => t === 4 || t === 5).sort(), hierarchy ? [4, 5] : [5]);
      sim.resetCounts();
      const again = await runReal(server, 7);
      assert.equal(again.status, 200);
      const counts = sim.counts();
      assert.equal(
        (counts['PATCH /api/documents/{id}/'] ?? 0) + (counts['POST /api/documents/bulk_edit/'] ?? 0),
        0,
        JSON.stringify(counts),
      );
    });
  });
}
