import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { optionsFor } from '../../../renderer/src/editor/schema-completion.js';
import type { SchemaNode } from '../../../renderer/src/editor/schema-walk.js';
import { extractedNames } from '../../../renderer/src/editor/template-completion.js';
import { normalizeLanguage, normalizeVocabulary } from '../../../renderer/src/editor/vocabulary.js';
import { dmsNames, schemaInfo } from '../../../server/rules/schema-info.js';

const info = schemaInfo(dmsNames(null, null));
const data = {
  schema: info.schema as unknown as SchemaNode,
  vocabulary: normalizeVocabulary({
    tags: ['inbox', 'Steuer'],
    custom_fields: [{ name: 'Amount' }],
    users: ['anna', 'ben'],
    groups: ['Family'],
  }),
  language: normalizeLanguage(info.vocabulary),
  vars: ['year_tag'],
};

/** Labels offered at the `‸` marker. */
function labels(source: string): string[] {
  const index = source.indexOf('‸');
  const text = source.slice(0, index) + source.slice(index + 1);
  const before = text.slice(0, index).split('\n');
  return optionsFor(data, text, before.length - 1, before[before.length - 1].length)?.options.map((o) => o.label) ?? [];
}

const RULE = 'rules:\n  - id: a\n';

describe('completion where rules are written', () => {
  it('offers operators inside a flow mapping, by field kind: text fields get no tag operators', () => {
    const ops = labels(`${RULE}    when:\n      content: { ‸`);
    assert.ok(ops.includes('matches'));
    assert.ok(!ops.includes('any') && !ops.includes('gt'), ops.join(','));
    const tagOps = labels(`${RULE}    when:\n      tags:\n        ‸`);
    assert.deepEqual(tagOps.slice(0, 3), ['any', 'all', 'none']);
    assert.ok(!tagOps.includes('matches'));
    assert.ok(labels(`${RULE}    when:\n      created: { ‸`).includes('gte'));
  });

  it('offers tag names inside any/all/none lists, flow and block', () => {
    assert.deepEqual(labels(`${RULE}    when:\n      tags: { any: [St‸`), ['inbox', 'Steuer']);
    assert.deepEqual(labels(`${RULE}    when:\n      tags:\n        none:\n          - ‸`), ['inbox', 'Steuer']);
  });

  it('offers user names for owners and user lists, group names for group lists', () => {
    assert.deepEqual(labels(`${RULE}    actions:\n      - set_owner: ‸`), ['anna', 'ben']);
    assert.deepEqual(labels(`${RULE}    actions:\n      - add_permissions: { view: { groups: [‸`), ['Family']);
    assert.deepEqual(
      labels(`${RULE}    actions:\n      - set_permissions:\n          change:\n            users:\n              - ‸`),
      ['anna', 'ben'],
    );
    assert.deepEqual(labels(`${RULE}    when:\n      owner: ‸`), ['anna', 'ben']);
    const kinds = labels(`${RULE}    actions:\n      - remove_permissions:\n          ‸`);
    assert.deepEqual(kinds.sort(), ['change', 'view']);
  });

  it('offers modifiers under the action they apply to, never among actions', () => {
    const actions = labels(`${RULE}    actions:\n      - ‸`);
    assert.ok(actions.includes('set_custom_fields'));
    assert.ok(!actions.includes('if_empty') && !actions.includes('create_missing'));
    // if and if_changed fit every action; the others only theirs.
    assert.deepEqual(labels(`${RULE}    actions:\n      - set_custom_fields: { Amount: "1" }\n        ‸`).sort(), [
      'if',
      'if_changed',
      'if_empty',
    ]);
    assert.deepEqual(labels(`${RULE}    actions:\n      - add_tags: [x]\n        ‸`).sort(), [
      'create_missing',
      'if',
      'if_changed',
    ]);
    assert.deepEqual(labels(`${RULE}    actions:\n      - set_storage_path: x\n        ‸`).sort(), [
      'create_missing',
      'if',
      'if_changed',
      'path',
    ]);
    assert.deepEqual(labels(`${RULE}    actions:\n      - set_title: x\n        ‸`).sort(), ['if', 'if_changed']);
  });

  it('offers extracted names, doc fields, vars and filters inside {{ }}', () => {
    const text = `${RULE}    extract:\n      total: { from: content, regex: "x" }\n      number: { from: content, regex: "y" }\n    actions:\n      - set_title: "{{ ‸`;
    const top = labels(text);
    assert.ok(
      ['total', 'number', 'doc', 'vars', 'now', 'rule'].every((n) => top.includes(n)),
      top.join(','),
    );
    assert.ok(labels(`${RULE}    actions:\n      - set_title: "{{ doc.ti‸`).includes('doc.title'));
    assert.deepEqual(labels(`${RULE}    actions:\n      - set_title: "{{ vars.‸`), ['vars.year_tag']);
    assert.ok(labels(`${RULE}    actions:\n      - set_title: "{{ doc.title | up‸`).includes('upcase'));
    assert.deepEqual(labels(`${RULE}    actions:\n      - set_title: "{{ doc.title }} ‸`), []);
  });

  it('finds the names under extract: blocks', () => {
    assert.deepEqual(
      extractedNames(
        'rules:\n  - id: a\n    extract:\n      total: {}\n      issued:\n        from: content\n    actions: []\n',
      ),
      ['total', 'issued'],
    );
  });
});
