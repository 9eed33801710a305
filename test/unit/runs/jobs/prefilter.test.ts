import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DmsVocabulary } from '../../../../server/dms/types.js';
import type { Condition } from '../../../../server/engine/model.js';
import { fieldsWrittenBy, prefilterFor, prefilterNeedsNames } from '../../../../server/runs/jobs/prefilter.js';

const vocab: DmsVocabulary = {
  users: [
    { id: 3, name: 'anna' },
    { id: 4, name: 'ben' },
  ],
  groups: [{ id: 1, name: 'Family' }],
  tags: [
    { id: 1, name: 'inbox', is_inbox_tag: true, parent: null },
    { id: 2, name: 'processed', is_inbox_tag: false, parent: null },
    { id: 3, name: 'Paid', is_inbox_tag: false, parent: null },
    { id: 4, name: 'paid', is_inbox_tag: false, parent: null, owner: 2 },
  ],
  correspondents: [
    { id: 10, name: 'ACME' },
    { id: 11, name: 'Telekom' },
  ],
  document_types: [{ id: 20, name: 'Invoice' }],
  storage_paths: [],
  custom_fields: [],
};
const now = new Date('2025-03-15T12:00:00Z');
const pf = (when: Condition | undefined) => prefilterFor(when, vocab, now);

const cases: Array<[string, Condition | undefined, Record<string, string>]> = [
  ['no condition reads everything', undefined, {}],
  ['correspondent shorthand, case-insensitive by default', { correspondent: 'acme' }, { correspondent__id__in: '10' }],
  [
    'correspondent case-sensitive that does not match exactly',
    { correspondent: { equals: 'acme', case_sensitive: true } },
    {},
  ],
  ['document type in a list', { document_type: { in: ['Invoice', 'Unknown'] } }, { document_type__id__in: '20' }],
  ['document type null', { document_type: null }, { document_type__isnull: 'true' }],
  ['unknown correspondent leaves the decision to the engine', { correspondent: 'Nobody' }, {}],
  ['tags all', { tags: { all: ['inbox', 'processed'] } }, { tags__id__all: '1,2' }],
  ['tags all with an ambiguous name is skipped', { tags: { all: ['paid'] } }, {}],
  ['tags any includes every tag the name could mean', { tags: { any: ['paid'] } }, { tags__id__in: '3,4' }],
  ['tags none', { tags: { none: ['processed', 'nope'] } }, { tags__id__none: '2' }],
  ['not tags any is tags none', { not: { tags: { any: ['processed'] } } }, { tags__id__none: '2' }],
  ['not of anything else is not used', { not: { correspondent: 'ACME' } }, {}],
  ['content contains ASCII', { content: { contains: 'Rechnung' } }, { content__icontains: 'Rechnung' }],
  ['content contains non-ASCII is not used', { content: { contains: 'März' } }, {}],
  [
    'title starts and ends',
    { title: { starts_with: 'Scan', ends_with: '.pdf' } },
    { title__istartswith: 'Scan', title__iendswith: '.pdf' },
  ],
  ['regex is never translated', { content: { matches: 'invoice' } }, {}],
  ['templates are never translated', { content: { contains: '{{ vars.x }}' } }, {}],
  [
    'created absolute, widened a day',
    { created: { gte: '2024-01-10', lt: '2024-02-01' } },
    { created__gte: '2024-01-09', created__lte: '2024-02-02' },
  ],
  ['created relative -30d', { created: { gte: '-30d' } }, { created__gte: '2025-02-12' }],
  ['added uses the date lookups', { added: { gt: '2025-01-01T10:00:00Z' } }, { added__date__gte: '2024-12-31' }],
  ['any-combinator gives nothing', { any: [{ correspondent: 'ACME' }, { tags: { all: ['inbox'] } }] }, {}],
  [
    'nested all chains are used, siblings in any are not',
    {
      all: [
        { correspondent: 'ACME' },
        { all: [{ tags: { none: ['processed'] } }] },
        { any: [{ document_type: null }, { document_type: 'Invoice' }] },
      ],
    },
    { correspondent__id__in: '10', tags__id__none: '2' },
  ],
  [
    'two tags-none conditions combine',
    { all: [{ tags: { none: ['inbox'] } }, { not: { tags: { any: ['processed'] } } }] },
    { tags__id__none: '1,2' },
  ],
  [
    'two contains on one field keep the first',
    { all: [{ title: { contains: 'a' } }, { title: { contains: 'b' } }] },
    { title__icontains: 'a' },
  ],
];

for (const [name, when, expected] of cases) {
  test(`prefilter: ${name}`, () => assert.deepEqual(pf(when), expected));
}

test('a real run never filters on a field its own actions write (pages would shift under it)', () => {
  const when: Condition = {
    all: [{ correspondent: 'ACME' }, { not: { tags: { any: ['processed'] } } }, { modified: { gte: '2025-01-01' } }],
  };
  const writes = fieldsWrittenBy([{ add_tags: ['processed'] }, { set_title: 'x' }]);
  assert.deepEqual([...writes].sort(), ['tags', 'title']);
  assert.deepEqual(prefilterFor(when, vocab, now, { writes }), { correspondent__id__in: '10' });
  assert.deepEqual(
    prefilterFor(when, vocab, now),
    { correspondent__id__in: '10', tags__id__none: '2' },
    'modified is never used: the job itself moves it',
  );
});

test('prefilterNeedsNames: a prefilter it says needs no names is the same without the vocabulary', () => {
  const now = new Date('2024-06-01T00:00:00Z');
  const empty: DmsVocabulary = {
    tags: [],
    correspondents: [],
    document_types: [],
    storage_paths: [],
    custom_fields: [],
  };
  const conditions: Array<[Condition, boolean]> = [
    [{ content: { matches: '(?i)rechnung' } }, false],
    [{ all: [{ title: { contains: 'Rechnung' } }, { created: { gte: '-30d' } }] }, false],
    [{ any: [{ tags: { any: ['paid'] } }, { title: { contains: 'x' } }] }, false],
    [{ tags: { any: ['paid'] } }, true],
    [{ all: [{ not: { tags: { any: ['processed'] } } }, { content: { contains: 'x' } }] }, true],
    [{ all: [{ correspondent: 'ACME' }] }, true],
  ];
  for (const [when, needs] of conditions) {
    assert.equal(prefilterNeedsNames(when), needs, JSON.stringify(when));
    if (!needs) assert.deepEqual(prefilterFor(when, vocab, now), prefilterFor(when, empty, now), JSON.stringify(when));
    else assert.notDeepEqual(prefilterFor(when, vocab, now), prefilterFor(when, empty, now), JSON.stringify(when));
  }
});
