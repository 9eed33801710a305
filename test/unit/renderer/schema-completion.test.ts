import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { oneLine, optionsFor, vocabularyKind, yamlScalar } from '../../../renderer/src/editor/schema-completion.js';
import type { SchemaNode } from '../../../renderer/src/editor/schema-walk.js';
import { normalizeVocabulary } from '../../../renderer/src/editor/vocabulary.js';
import { ITEM, yamlContextAt } from '../../../renderer/src/editor/yaml-context.js';
import { RULE_FILE_SCHEMA } from '../../../server/engine/rule-schema.js';

/** The text up to the `|` marker, and the marker's line and column. */
function at(source: string): { text: string; line: number; column: number } {
  const index = source.indexOf('|');
  const text = source.slice(0, index) + source.slice(index + 1);
  const before = text.slice(0, index).split('\n');
  return { text, line: before.length - 1, column: before[before.length - 1].length };
}

const data = {
  schema: RULE_FILE_SCHEMA as unknown as SchemaNode,
  vocabulary: normalizeVocabulary({
    dms: {
      tags: ['inbox', 'invoice', 'Tax 2024'],
      correspondents: ['ACME GmbH', 'Stadtwerke'],
      document_types: ['Invoice', 'Contract'],
      storage_paths: ['Archive'],
      custom_fields: [
        { name: 'Amount', data_type: 'monetary' },
        { name: 'Invoice number', data_type: 'string' },
      ],
    },
  }),
};

function labels(source: string): string[] {
  const { text, line, column } = at(source);
  return optionsFor(data, text, line, column)?.options.map((o) => o.label) ?? [];
}

describe('yaml context from indentation', () => {
  it('finds the path of a key typed inside a nested condition list', () => {
    const { text, line, column } = at('rules:\n  - id: a\n    when:\n      all:\n        - corr|');
    assert.deepEqual(yamlContextAt(text, line, column), {
      kind: 'key',
      path: ['rules', ITEM, 'when', 'all', ITEM],
      prefix: 'corr',
      fromColumn: 10,
    });
  });

  it('finds the value path after a key, skipping sibling keys and comments', () => {
    const { text, line, column } = at(
      'rules:\n  - id: a\n    # a comment\n    description: x\n    actions:\n      - set_document_type: Inv|',
    );
    assert.deepEqual(yamlContextAt(text, line, column), {
      kind: 'value',
      path: ['rules', ITEM, 'actions', ITEM, 'set_document_type'],
      prefix: 'Inv',
      fromColumn: 27,
    });
  });

  it('completes an item inside a flow list', () => {
    const { text, line, column } = at('rules:\n  - id: a\n    actions:\n      - add_tags: [invoice, in|');
    const ctx = yamlContextAt(text, line, column);
    assert.equal(ctx?.kind, 'value');
    assert.deepEqual(ctx?.path, ['rules', ITEM, 'actions', ITEM, 'add_tags', ITEM]);
    assert.equal(ctx?.prefix, 'in');
  });

  it('offers nothing inside a comment', () => {
    const { text, line, column } = at('rules:\n  # when: |');
    assert.equal(yamlContextAt(text, line, column), null);
  });
});

describe('schema completion', () => {
  it('offers the top-level key of a rule file', () => {
    assert.deepEqual(labels('ru|'), ['rules']);
  });

  it('offers rule keys in a rule item and not condition keys', () => {
    const keys = labels('rules:\n  - id: a\n    |');
    for (const k of ['description', 'when', 'extract', 'actions', 'stop', 'tests']) assert.ok(keys.includes(k), k);
    assert.ok(!keys.includes('correspondent'));
  });

  it('offers combinators, document fields and custom fields in a condition', () => {
    const keys = labels('rules:\n  - id: a\n    when:\n      all:\n        - |');
    for (const k of ['all', 'any', 'not', 'correspondent', 'content', 'tags', 'custom_fields.Amount'])
      assert.ok(keys.includes(k), k);
  });

  it('offers operators under a field', () => {
    const keys = labels('rules:\n  - id: a\n    when:\n      content:\n        |');
    for (const k of ['matches', 'contains', 'starts_with', 'gt', 'case_sensitive']) assert.ok(keys.includes(k), k);
  });

  it('offers query keys, the fields a query filters, the values of a max field and names under them', () => {
    const extraction = labels('rules:\n  - id: a\n    extract:\n      n:\n        |');
    for (const k of ['query', 'field', 'where', 'regex']) assert.ok(extraction.includes(k), k);
    const kinds = labels('rules:\n  - id: a\n    extract:\n      n:\n        query: |');
    assert.deepEqual(kinds, ['count', 'ids', 'first', 'last', 'max', 'min']);
    const where = labels(
      'rules:\n  - id: a\n    extract:\n      n:\n        query: count\n        where:\n          |',
    );
    for (const k of ['correspondent', 'title', 'tags', 'archive_serial_number', 'custom_fields.Amount'])
      assert.ok(where.includes(k), k);
    assert.ok(!where.includes('notes'), 'a field the dms cannot filter is not offered');
    const names = labels(
      'rules:\n  - id: a\n    extract:\n      n:\n        query: count\n        where:\n          correspondent: |',
    );
    assert.ok(names.includes('Stadtwerke'));
    const field = labels('rules:\n  - id: a\n    extract:\n      n:\n        query: max\n        field: |');
    assert.deepEqual(field, [
      'archive_serial_number',
      'created',
      'added',
      'custom_fields.Amount',
      'custom_fields.Invoice number',
    ]);
  });

  it('offers action names in an action item', () => {
    const keys = labels('rules:\n  - id: a\n    actions:\n      - |');
    for (const k of ['set_title', 'add_tags', 'set_custom_fields', 'add_note', 'create_missing'])
      assert.ok(keys.includes(k), k);
  });

  it("offers the dms's real names where a rule names them", () => {
    assert.deepEqual(labels('rules:\n  - id: a\n    when:\n      correspondent: |'), ['ACME GmbH', 'Stadtwerke']);
    assert.deepEqual(labels('rules:\n  - id: a\n    actions:\n      - set_document_type: |'), ['Invoice', 'Contract']);
    assert.deepEqual(labels('rules:\n  - id: a\n    actions:\n      - add_tags:\n          - |'), [
      'inbox',
      'invoice',
      'Tax 2024',
    ]);
    assert.deepEqual(labels('rules:\n  - id: a\n    when:\n      tags: { any: [|'), ['inbox', 'invoice', 'Tax 2024']); // inside flow mappings too
    assert.deepEqual(labels('rules:\n  - id: a\n    when:\n      tags:\n        none: [|'), [
      'inbox',
      'invoice',
      'Tax 2024',
    ]);
    assert.ok(
      labels('rules:\n  - id: a\n    actions:\n      - set_custom_fields:\n          |').includes('Invoice number'),
    );
  });

  it('offers enum values and booleans', () => {
    assert.deepEqual(labels('rules:\n  - id: a\n    extract:\n      total:\n        type: |'), [
      'string',
      'int',
      'number',
      'money',
      'date',
      'bool',
    ]);
    assert.deepEqual(labels('rules:\n  - id: a\n    stop: |'), ['true', 'false']);
    assert.deepEqual(labels('rules:\n  - id: a\n    on: [added, |'), ['added', 'updated', 'manual']);
  });

  it('maps a path to the names it takes, through operators', () => {
    assert.equal(vocabularyKind(['rules', ITEM, 'when', 'tags', 'any', ITEM]), 'tags');
    assert.equal(vocabularyKind(['rules', ITEM, 'when', 'document_type', 'in', ITEM]), 'document_types');
    assert.equal(vocabularyKind(['rules', ITEM, 'description']), null);
  });

  it('quotes names that YAML would read as something else', () => {
    assert.equal(yamlScalar('ACME GmbH'), 'ACME GmbH');
    assert.equal(yamlScalar('Key: value'), '"Key: value"');
    assert.equal(yamlScalar('#1'), '"#1"');
    assert.equal(yamlScalar('true'), '"true"');
    assert.equal(yamlScalar('2024'), '"2024"');
  });
});

describe('money members in templates', () => {
  const words = {
    fields: ['title'],
    text_operators: [],
    comparison_operators: [],
    tag_operators: [],
    action_modifiers: [],
    template_filters: ['date'],
    template_context: ['doc', 'vars', 'now', 'rule'],
  };
  const withWords = { ...data, language: words };
  const options = (source: string) => {
    const { text, line, column } = at(source);
    return optionsFor(withWords, text, line, column)?.options.map((o) => o.label) ?? [];
  };
  it('offers .amount and .currency after a custom field and after an extracted value, not after doc', () => {
    assert.deepEqual(options('rules:\n  - id: a\n    actions:\n      - set_title: "{{ doc.custom_fields.Amount.|'), [
      'doc.custom_fields.Amount.amount',
      'doc.custom_fields.Amount.currency',
    ]);
    const extracted =
      'rules:\n  - id: a\n    extract:\n      total: { regex: "(x)", type: money }\n    actions:\n      - set_title: "{{ total.am|';
    assert.deepEqual(options(extracted), ['total.amount', 'total.currency']);
    assert.ok(options('rules:\n  - id: a\n    actions:\n      - set_title: "{{ doc.ti|').includes('doc.title'));
  });
});

describe('extraction groups and locale', () => {
  it('offers groups and locale as extraction keys, and languages as locale values', () => {
    const keys = labels('rules:\n  - id: a\n    extract:\n      ids:\n        regex: x\n        |');
    for (const k of ['groups', 'locale']) assert.ok(keys.includes(k), k);
    assert.ok(labels('rules:\n  - id: a\n    extract:\n      d:\n        locale: f|').includes('fr'));
    const groupKeys = labels(
      'rules:\n  - id: a\n    extract:\n      ids:\n        groups:\n          order:\n            |',
    );
    for (const k of ['type', 'format', 'locale', 'required']) assert.ok(groupKeys.includes(k), k);
  });
});

describe('expect unchanged', () => {
  it('offers the fields a rule test may pin as unchanged', () => {
    const words = {
      fields: ['title', 'custom_fields.Amount'],
      text_operators: [],
      comparison_operators: [],
      tag_operators: [],
      action_modifiers: [],
      template_filters: [],
      template_context: [],
    };
    const { text, line, column } = at(
      'rules:\n  - id: a\n    tests:\n      - document: {}\n        expect:\n          unchanged: [cus|',
    );
    const offered = optionsFor({ ...data, language: words }, text, line, column)?.options.map((o) => o.label) ?? [];
    assert.ok(offered.includes('custom_fields.Amount'), offered.join());
    const keys = labels('rules:\n  - id: a\n    tests:\n      - document: {}\n        expect:\n          |');
    assert.ok(keys.includes('unchanged'));
  });
});

describe('Paperless matching operators', () => {
  it('offers any_word, all_words and fuzzy on a text field', () => {
    const keys = labels('rules:\n  - id: a\n    when:\n      content:\n        |');
    for (const k of ['any_word', 'all_words', 'fuzzy']) assert.ok(keys.includes(k), k);
  });
});

describe('move_to_trash', () => {
  it('is offered as an action, and true as its value', () => {
    assert.ok(labels('rules:\n  - id: a\n    actions:\n      - mov|').includes('move_to_trash'));
    assert.deepEqual(labels('rules:\n  - id: a\n    actions:\n      - move_to_trash: |'), ['true']);
  });
});

describe('completion items say in one line what they are', () => {
  it('gives every rule key a short description beside it, the full text as its info', () => {
    const { text, line, column } = at('rules:\n  - id: a\n    |');
    const options = optionsFor(data, text, line, column)?.options ?? [];
    const when = options.find((o) => o.label === 'when');
    assert.ok(when?.detail && when.detail.length <= 60 && !when.detail.includes('\n'), JSON.stringify(when));
    assert.ok(
      options.filter((o) => o.type === 'property').every((o) => typeof o.detail === 'string' && o.detail.length > 0),
    );
  });

  it('cuts a description at its first sentence and at 60 characters', () => {
    assert.equal(
      oneLine('Conditions the document must meet. Without it every document matches.'),
      'Conditions the document must meet',
    );
    assert.equal(oneLine('x'.repeat(80))?.length, 60);
    assert.equal(oneLine(undefined), undefined);
  });
});
