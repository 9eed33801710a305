import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DmsDocument } from '../../../../server/dms/types.js';
import { beforeMirror, mirroredLinks } from '../../../../server/runs/echo/link-mirror.js';

const doc = (id: number, custom_fields: DmsDocument['custom_fields']): DmsDocument =>
  ({ id, title: `doc ${id}`, tags: [], custom_fields }) as unknown as DmsDocument;

describe('document-link mirroring (Paperless reflect_doclinks / remove_doclink)', () => {
  it('names every target a written link field holds, and the targets of a link field the write removed', () => {
    const before = doc(3, [
      { field: 7, value: [8] },
      { field: 9, value: [11, 12] },
    ]);
    const after = doc(3, [
      { field: 7, value: [8, 10] },
      { field: 4, value: 'R-12' },
    ]);
    assert.deepEqual(mirroredLinks(after, before), [
      { target: 8, field: 7, source: 3, added: true },
      { target: 10, field: 7, source: 3, added: true },
      { target: 11, field: 9, source: 3, added: false },
      { target: 12, field: 9, source: 3, added: false },
    ]);
    assert.deepEqual(mirroredLinks(doc(3, [{ field: 7, value: [3] }])), [], 'a link to itself mirrors nothing');
  });

  it('an addition came from an absent field, a null or an empty list when the source is all the target holds', () => {
    const forms = beforeMirror(doc(8, [{ field: 7, value: [3] }]), { target: 8, field: 7, source: 3, added: true });
    assert.deepEqual(
      forms.map((f) => f.custom_fields),
      [[], [{ field: 7, value: null }], [{ field: 7, value: [] }]],
    );
    const appended = beforeMirror(doc(8, [{ field: 7, value: [5, 3] }]), {
      target: 8,
      field: 7,
      source: 3,
      added: true,
    });
    assert.deepEqual(
      appended.map((f) => f.custom_fields),
      [[{ field: 7, value: [5] }]],
    );
    assert.deepEqual(
      beforeMirror(doc(8, []), { target: 8, field: 7, source: 3, added: true }),
      [],
      'no mirror happened',
    );
  });

  it('a removal took the source out wherever it stood', () => {
    const forms = beforeMirror(doc(8, [{ field: 7, value: [5, 6] }]), { target: 8, field: 7, source: 3, added: false });
    assert.deepEqual(
      forms.map((f) => f.custom_fields?.[0].value),
      [
        [3, 5, 6],
        [5, 3, 6],
        [5, 6, 3],
      ],
    );
  });
});
