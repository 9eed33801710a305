import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DmsCustomField, DmsDocument } from '../../../../server/dms/types.js';
import { readValuesOf, type JournalWrite } from '../../../../server/runs/journal/journal-records.js';
import type { JournalRun } from '../../../../server/runs/journal/write-journal.js';
import { decideRestore, jobWrites, sameSlot } from '../../../../server/runs/jobs/revert-plan.js';
import { dmsDocument } from '../../../helpers/dms-document.js';

const BETRAG: DmsCustomField = {
  id: 1,
  name: 'Betrag',
  data_type: 'monetary',
  extra_data: { select_options: [], default_currency: 'EUR' },
};
const fields = (id: number) => (id === BETRAG.id ? BETRAG : undefined);

function run(
  doc: DmsDocument,
  writes: JournalWrite[],
  over: { ok?: boolean[]; end?: 'applied' | 'partial' | 'not_applied'; dms?: string } = {},
): JournalRun {
  return {
    entry: {
      t: 'run',
      run: String(Math.random()),
      dms: over.dms ?? 'dms',
      doc: doc.id,
      event: 7,
      source: 'job',
      rules: ['r'],
      at: 0,
      read: readValuesOf(doc),
      writes,
    },
    outcomes: writes.map((_, i) => ({ t: 'out', run: '', i, ok: over.ok?.[i] ?? true })),
    end: { t: 'end', run: '', status: over.end ?? 'applied' },
  };
}

test('the state before is the first run’s read, the value to find is the last one sent; refused requests do not count', () => {
  const doc = dmsDocument(1, { title: 'Scan 1', tags: [3] });
  const [w] = jobWrites([
    run(doc, [
      { kind: 'patch', patch: { title: 'A' } },
      { kind: 'tags', add: [5], remove: [3] },
    ]),
    run({ ...doc, title: 'A' }, [{ kind: 'patch', patch: { title: 'B' } }]),
    run(doc, [{ kind: 'patch', patch: { correspondent: 9 } }], { ok: [false] }),
    run(doc, [{ kind: 'patch', patch: { document_type: 9 } }], { end: 'not_applied' }),
  ]);
  assert.deepEqual(w.scalars, { title: { before: 'Scan 1', sent: 'B' } });
  assert.deepEqual(w.tags, { 3: { before: true, sent: false }, 5: { before: false, sent: true } });
});

test('a field still holding what was sent goes back; one edited since stays; one already as before needs nothing', () => {
  const doc = dmsDocument(1, { title: 'Scan 1', correspondent: null, archive_serial_number: 4 });
  const [w] = jobWrites([
    run(doc, [{ kind: 'patch', patch: { title: 'ACME #1', correspondent: 2, archive_serial_number: 5 } }]),
  ]);
  const now = dmsDocument(1, { title: 'ACME #1', correspondent: 8, archive_serial_number: 4 });
  const r = decideRestore(now, w, fields);
  assert.deepEqual(r.patch, { title: 'Scan 1' });
  assert.deepEqual(
    r.checks.map((c) => [c.field, c.verdict]),
    [
      ['title', 'restore'],
      ['correspondent', 'edited'],
      ['archive_serial_number', 'as_before'],
    ],
  );
});

test('tags are undone one by one: a tag a person added since stays, one they removed is not forced back', () => {
  const doc = dmsDocument(1, { tags: [1, 2] });
  const [w] = jobWrites([run(doc, [{ kind: 'tags', add: [3, 4], remove: [1] }])]);
  const r = decideRestore(dmsDocument(1, { tags: [2, 3, 9] }), w, fields);
  assert.deepEqual(r.tags, { add: [1], remove: [3] });
  assert.equal(r.checks.find((c) => c.item === 4)?.verdict, 'as_before');
});

test('money is the same money by amount and currency, a bare amount being in the field’s default currency', () => {
  const slot = (value: unknown) => ({ attached: true as const, value });
  assert.equal(sameSlot(BETRAG, slot('EUR39.95'), slot('39.95')), true);
  assert.equal(sameSlot(BETRAG, slot('39.95'), slot('EUR39.95')), true);
  assert.equal(sameSlot(BETRAG, slot('EUR39.95'), slot('USD39.95')), false);
  assert.equal(sameSlot(BETRAG, slot('EUR39.95'), slot('EUR39.96')), false);
  assert.equal(sameSlot(BETRAG, slot('EUR39.95'), { attached: false }), false);
});

test('a custom field goes back as Paperless had it; one the job attached is detached again', () => {
  const doc = dmsDocument(1, { custom_fields: [{ field: 1, value: '12.5' }] });
  const [w] = jobWrites([
    run(doc, [
      {
        kind: 'custom_fields',
        set: [
          { field: 1, value: 'EUR39.95' },
          { field: 4, value: 'offen' },
        ],
        remove: [],
      },
    ]),
  ]);
  const now = dmsDocument(1, {
    custom_fields: [
      { field: 1, value: '39.95' },
      { field: 4, value: 'offen' },
    ],
  });
  assert.deepEqual(decideRestore(now, w, fields).customFields, { set: [{ field: 1, value: '12.5' }], remove: [4] });
});

test('permission lists go back when the read kept them; a record without them is left alone and says so', () => {
  const permissions = { view: { users: [2], groups: [] }, change: { users: [], groups: [] } };
  const doc = dmsDocument(1, { owner: 2, permissions });
  const [w] = jobWrites([
    run(doc, [{ kind: 'patch', patch: { owner: 3, set_permissions: { view: { groups: [5] } } } }]),
  ]);
  const now = dmsDocument(1, { owner: 3, permissions: { ...permissions, view: { users: [2], groups: [5] } } });
  assert.deepEqual(decideRestore(now, w, fields).patch, { owner: 2, set_permissions: { view: { groups: [] } } });

  const older = run(doc, [{ kind: 'patch', patch: { set_permissions: { view: { groups: [5] } } } }]);
  delete older.entry.read.permissions;
  const r = decideRestore(now, jobWrites([older])[0], fields);
  assert.deepEqual(r.patch, {});
  assert.equal(r.checks[0].verdict, 'unrecorded');
});
