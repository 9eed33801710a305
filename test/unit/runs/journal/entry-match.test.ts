import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DmsHistoryEntry } from '../../../../server/dms/types.js';
import { readValuesOf, type JournalWrite } from '../../../../server/runs/journal/journal-records.js';
import { ownEntryTest } from '../../../../server/runs/journal/entry-match.js';
import type { JournalRun } from '../../../../server/runs/journal/write-journal.js';
import { dmsDocument } from '../../../helpers/dms-document.js';

const SELF = 3;
const fields = (id: number) =>
  ({ 1: { name: 'Betrag', select: false }, 2: { name: 'Status', select: true } })[id as 1 | 2];

function journaled(writes: JournalWrite[], notes: Record<number, number> = {}): JournalRun[] {
  return [
    {
      entry: {
        t: 'run',
        run: 'r1',
        dms: 'd',
        doc: 7,
        event: 1,
        source: 'webhook',
        rules: ['r'],
        at: 0,
        read: readValuesOf(dmsDocument(7)),
        writes,
      },
      outcomes: writes.map((_, i) => ({
        t: 'out' as const,
        run: 'r1',
        i,
        ok: true,
        ...(notes[i] ? { note: notes[i] } : {}),
      })),
      end: { t: 'end', run: 'r1', status: 'applied' },
    },
  ];
}

const entry = (changes: Record<string, unknown>, actor: DmsHistoryEntry['actor']): DmsHistoryEntry => ({
  id: 1,
  timestamp: '2026-11-28T10:00:00.000000Z',
  action: 'update',
  changes,
  actor,
});

const isOwnEntry = (entry: DmsHistoryEntry, runs: JournalRun[], self: number, names: typeof fields) =>
  ownEntryTest(runs, self, names)(entry);

describe('audit entries matched against the write journal', () => {
  const note: JournalWrite = { kind: 'note', text: 'Checked' };
  const amount: JournalWrite = { kind: 'custom_fields', set: [{ field: 1, value: 'EUR39.95' }], remove: [] };

  it("takes a note logged with no actor for the service's own when Paperless gave that note id to its write", () => {
    const runs = journaled([note], { 0: 41 });
    assert.equal(isOwnEntry(entry({ 'Note Added': ['None', 41] }, null), runs, SELF, fields), true);
    assert.equal(isOwnEntry(entry({ 'Note Added': ['None', 42] }, null), runs, SELF, fields), false, "a person's note");
  });

  it('takes a bulk custom-field value logged with no actor for its own by field name and value, money by amount', () => {
    const runs = journaled([amount]);
    const logged = (value: string) => entry({ custom_fields: { type: 'custom_field', field: 'Betrag', value } }, null);
    assert.equal(isOwnEntry(logged('EUR39.95'), runs, SELF, fields), true);
    assert.equal(
      isOwnEntry(logged('39.95'), journaled([{ ...amount, set: [{ field: 1, value: 39.95 }] }]), SELF, fields),
      true,
    );
    assert.equal(isOwnEntry(logged('EUR12.00'), runs, SELF, fields), false, 'another value: a workflow or a person');
    const bulkEntry = entry({ custom_fields: [null, [17]] }, { id: SELF, username: 'svc' });
    assert.equal(isOwnEntry(bulkEntry, runs, SELF, fields), true, "the bulk edit's own entry names instance ids");
    assert.equal(isOwnEntry(bulkEntry, journaled([note], { 0: 41 }), SELF, fields), false);
  });

  it("never takes another user's entry for its own, whatever it changed", () => {
    const runs = journaled([{ kind: 'patch', patch: { title: 'X+' } }]);
    assert.equal(isOwnEntry(entry({ title: ['X', 'X+'] }, { id: 4, username: 'ben' }), runs, SELF, fields), false);
    assert.equal(isOwnEntry(entry({ title: ['X', 'X+'] }, { id: SELF, username: 'svc' }), runs, SELF, fields), true);
  });

  it('takes an unmatched entry with no actor (a Paperless workflow) for a change the rules must see', () => {
    const runs = journaled([{ kind: 'patch', patch: { title: 'X+' } }]);
    assert.equal(isOwnEntry(entry({ correspondent: ['None', '4'] }, null), runs, SELF, fields), false);
    assert.equal(isOwnEntry(entry({ 'Note Deleted': [5, 'None'] }, null), runs, SELF, fields), false);
  });

  it("takes tags logged by a save (a workflow's, a person's) for a change, the bulk edit's own entry for the service's", () => {
    const runs = journaled([{ kind: 'tags', add: [7], remove: [] }]);
    const m2m = { tags: { type: 'm2m', operation: 'add', objects: ['Steuer'] } };
    assert.equal(isOwnEntry(entry(m2m, null), runs, SELF, fields), false, 'the service sends tags only by bulk edit');
    assert.equal(isOwnEntry(entry({ tags: [3, [3, 7]] }, { id: SELF, username: 'svc' }), runs, SELF, fields), true);
    assert.equal(isOwnEntry(entry({ tags: [3, [3, 7]] }, { id: SELF, username: 'svc' }), [], SELF, fields), false);
  });

  it('does not count a write the dms refused', () => {
    const runs = journaled([{ kind: 'patch', patch: { title: 'X+' } }]);
    runs[0].outcomes[0] = { t: 'out', run: 'r1', i: 0, ok: false };
    assert.equal(isOwnEntry(entry({ title: ['X', 'X+'] }, null), runs, SELF, fields), false);
  });
});
