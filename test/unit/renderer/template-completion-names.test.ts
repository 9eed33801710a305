import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { emptyDocument } from '../../../server/engine/engine.js';
import { dmsNames, schemaInfo } from '../../../server/rules/schema-info.js';
import { optionsFor } from '../../../renderer/src/editor/schema-completion.js';
import type { SchemaNode } from '../../../renderer/src/editor/schema-walk.js';
import { normalizeLanguage, normalizeVocabulary } from '../../../renderer/src/editor/vocabulary.js';
import { run } from '../engine/helpers.js';

const info = schemaInfo(dmsNames(null, null));
const data = {
  schema: info.schema as unknown as SchemaNode,
  vocabulary: normalizeVocabulary({
    tags: ['inbox'],
    correspondents: ['ACME GmbH'],
    custom_fields: [{ name: 'Fällig am' }, { name: 'Betrag' }],
  }),
  language: normalizeLanguage(info.vocabulary),
  vars: [],
};

/** The completion offered at `‸` for `label`, as the editor would insert it, and the line with it inserted. */
function insert(source: string, label: string, completion: typeof data = data): string {
  const index = source.indexOf('‸');
  const text = source.slice(0, index) + source.slice(index + 1);
  const lines = text.slice(0, index).split('\n');
  const column = lines[lines.length - 1].length;
  const result = optionsFor(completion, text, lines.length - 1, column);
  const option = result?.options.find((o) => o.label === label);
  assert.ok(option, `offered: ${result?.options.map((o) => o.label).join(', ')}`);
  const line = lines[lines.length - 1];
  return line.slice(0, result!.from) + (typeof option.apply === 'string' ? option.apply : option.label);
}

const RULE = 'rules:\n  - id: a\n    actions:\n';

describe('completion of custom field names in templates', () => {
  it('writes a name with a space as a quoted member, in the quote the YAML string leaves free', () => {
    assert.equal(
      insert(`${RULE}      - set_title: "Due {{ doc.custom_fields.F‸`, 'doc.custom_fields.Fällig am'),
      `      - set_title: "Due {{ doc.custom_fields['Fällig am']`,
    );
    assert.equal(
      insert(`${RULE}      - set_title: 'Due {{ doc.custom_fields.‸`, 'doc.custom_fields.Fällig am'),
      `      - set_title: 'Due {{ doc.custom_fields["Fällig am"]`,
    );
    assert.equal(
      insert(`${RULE}      - set_title: "{{ doc.custom_fields.B‸`, 'doc.custom_fields.Betrag'),
      '      - set_title: "{{ doc.custom_fields.Betrag',
    );
  });

  // The editor keeps a list while the typed word still fits it, so the list opened at `doc.` or `doc.custom_f` is the
  // one a person picks from after typing on: its custom fields must insert the same valid Liquid.
  it('writes a name with a space as a quoted member from the list opened before the second dot too', () => {
    // With a dms the service's field list names its custom fields (`custom_fields.Fällig am`).
    const withDms = {
      ...data,
      language: { ...data.language, fields: [...data.language.fields, 'custom_fields.Fällig am'] },
    };
    for (const typed of ['doc.', 'doc.custom_f', 'doc.custom_fields'])
      assert.equal(
        insert(`${RULE}      - set_title: "Due {{ ${typed}‸`, 'doc.custom_fields.Fällig am', withDms),
        `      - set_title: "Due {{ doc.custom_fields['Fällig am']`,
        typed,
      );
  });

  it('offers the money members after a quoted member', () => {
    assert.equal(
      insert(`${RULE}      - set_title: "{{ doc.custom_fields['Fällig am'].‸`, `doc.custom_fields['Fällig am'].amount`),
      `      - set_title: "{{ doc.custom_fields['Fällig am'].amount`,
    );
  });

  it('inserts Liquid the rule compiles and renders: the field value, not "template names am"', () => {
    const doc = { ...emptyDocument(), title: 'old', custom_fields: { 'Fällig am': '2025-04-01' } };
    for (const template of [`Due {{ doc.custom_fields['Fällig am'] }}`, 'Due {{ doc.custom_fields["Fällig am"] }}']) {
      const ev = run(doc, [{ id: 'r', actions: [{ set_title: template }] }]);
      assert.equal(ev.results[0].error, null, template);
      assert.equal(ev.changes.title, 'Due 2025-04-01', template);
    }
  });

  it('keeps completing inside a flow mapping left open over several lines', () => {
    const at = (source: string) => {
      const index = source.indexOf('‸');
      const text = source.slice(0, index) + source.slice(index + 1);
      const lines = text.slice(0, index).split('\n');
      return (
        optionsFor(data, text, lines.length - 1, lines[lines.length - 1].length)?.options.map((o) => o.label) ?? []
      );
    };
    assert.ok(at('rules:\n  - id: a\n    when: {\n      correspondent: ‸').includes('ACME GmbH'));
    assert.ok(at('rules:\n  - id: a\n    when: { tags: { any: [‸').includes('inbox'));
    assert.ok(at('rules:\n  - id: a\n    when: {\n      corr‸').includes('correspondent'));
    assert.ok(at('rules:\n  - id: a\n    when: { title: x, ‸\n    actions: []').includes('correspondent'));
  });
});
