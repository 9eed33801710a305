import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readValuesOf } from '../../../../server/runs/journal/journal-records.js';
import { isApplied, leftAsWritten, untouchedSinceRead } from '../../../../server/runs/journal/reconcile.js';
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

describe('a document as a run left it, told from a change beside the run', () => {
  const before = dmsDocument(7, {
    title: 'Rechnung',
    tags: [1, 2],
    custom_fields: [
      { field: 4, value: 'EUR10.00' },
      { field: 5, value: 'ben' },
    ],
  });
  const read = readValuesOf(before);
  const addTag = { kind: 'tags' as const, add: [3], remove: [] };

  it('is left as written when only the run’s tags changed', () => {
    assert.equal(leftAsWritten({ ...before, tags: [1, 2, 3] }, read, [addTag]), true);
  });

  it('is not, when a person took off or put on a tag the run did not name', () => {
    assert.equal(leftAsWritten({ ...before, tags: [1, 3] }, read, [addTag]), false);
    assert.equal(leftAsWritten({ ...before, tags: [1, 2, 3, 8] }, read, [addTag]), false);
  });

  it('lets a removed tag take tags with it, as Paperless takes a removed tag’s descendants', () => {
    const removeTag = { kind: 'tags' as const, add: [], remove: [1] };
    assert.equal(leftAsWritten({ ...before, tags: [] }, read, [removeTag]), true);
  });

  it('counts custom fields one by one: a person’s other field is a change of theirs', () => {
    const setAmount = { kind: 'custom_fields' as const, set: [{ field: 4, value: 'EUR39.95' }], remove: [] };
    const withFields = (owner: string) => ({
      ...before,
      custom_fields: [
        { field: 4, value: 'EUR39.95' },
        { field: 5, value: owner },
      ],
    });
    assert.equal(leftAsWritten(withFields('ben'), read, [setAmount]), true);
    const edited = withFields('anna');
    assert.equal(leftAsWritten(edited, read, [setAmount]), false);
  });
});
