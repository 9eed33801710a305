import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readValuesOf } from '../../../../server/runs/journal/journal-records.js';
import { isApplied, untouchedSinceRead } from '../../../../server/runs/journal/reconcile.js';
import { dmsDocument } from '../../../helpers/dms-document.js';

describe('reconciling a write whose answer a kill cut off', () => {
  const before = dmsDocument(7, { title: 'Rechnung', tags: [1], created: '2024-03-01', notes: [] });
  const read = readValuesOf(before);

  it('finds a PATCH applied when the document holds its values (a date by its day)', () => {
    const write = { kind: 'patch' as const, patch: { title: 'Rechnung+', created: '2024-03-05' } };
    assert.equal(isApplied(write, before, read), false);
    assert.equal(isApplied(write, { ...before, title: 'Rechnung+', created: '2024-03-05T00:00:00+01:00' }, read), true);
  });

  it('finds tags and custom fields applied by difference, a note by a new note of that text', () => {
    assert.equal(isApplied({ kind: 'tags', add: [2], remove: [1] }, { ...before, tags: [2] }, read), true);
    assert.equal(isApplied({ kind: 'tags', add: [2], remove: [1] }, { ...before, tags: [1, 2] }, read), false);
    const cf = { kind: 'custom_fields' as const, set: [{ field: 4, value: 'EUR39.95' }], remove: [] };
    assert.equal(isApplied(cf, { ...before, custom_fields: [{ field: 4, value: 'EUR39.95' }] }, read), true);
    const note = { kind: 'note' as const, text: 'Checked' };
    const withNote = { ...before, notes: [{ id: 9, note: 'Checked', created: '', user: null }] };
    assert.equal(isApplied(note, withNote, read), true);
    assert.equal(isApplied(note, before, read), false);
  });

  it('finds a trash applied when the document is gone, and cannot tell a permissions-only PATCH', () => {
    assert.equal(isApplied({ kind: 'trash' }, null, read), true);
    assert.equal(
      isApplied({ kind: 'patch', patch: { set_permissions: { view: { users: [4] } } } }, before, read),
      null,
    );
  });

  it('sends the rest of a run only where nobody changed the field since the read', () => {
    const write = { kind: 'patch' as const, patch: { title: 'Rechnung+' } };
    assert.equal(untouchedSinceRead(write, before, read), true);
    assert.equal(untouchedSinceRead(write, { ...before, title: 'Edited by ben' }, read), false);
  });
});
