import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ValidationError } from '../../../server/app-errors.js';
import { checkRuleFileSchema, checkVarsFileSchema } from '../../../server/rules/schema-check.js';
import { parseYamlSource } from '../../../server/rules/yaml-source.js';

function schemaError(text: string, check = checkRuleFileSchema): ValidationError {
  const source = parseYamlSource(text);
  try {
    check(source, source.value);
  } catch (err) {
    assert.ok(err instanceof ValidationError);
    return err;
  }
  assert.fail('the schema accepted it');
}

describe('schema stage', () => {
  it('accepts a valid rule file', () => {
    const source = parseYamlSource(
      'rules:\n  - id: a\n    when: { title: { contains: x } }\n    actions:\n      - add_tags: [b]\n',
    );
    checkRuleFileSchema(source, source.value);
  });

  const cases: Array<[string, string, RegExp]> = [
    [
      'an unknown rule key, at the key',
      'rules:\n  - id: a\n    foo: 1\n',
      /^line 3, column 5: rule "a": unknown key "foo"; expected one of: id, description/,
    ],
    ['a missing id', 'rules:\n  - description: x\n', /^line 2, column 5: rules\[0\]: missing required key "id"/],
    [
      'a bad id',
      'rules:\n  - id: Bad Id\n',
      /^line 2, column 9: rule "Bad Id" at id: "Bad Id" does not match the pattern/,
    ],
    [
      'an unknown operator',
      'rules:\n  - id: a\n    when:\n      all:\n        - content: { matchez: x }\n',
      /^line 5, column 22: rule "a" at when\.all\[0\]\.content: unknown key "matchez"; did you mean "matches"\?$/,
    ],
    [
      'a wrongly typed operand',
      'rules:\n  - id: a\n    when: { content: { matches: 5 } }\n',
      /^line 3, column 33: rule "a" at when\.content\.matches: must be a string or a list, not 5/,
    ],
    [
      'an extraction without regex or value',
      'rules:\n  - id: a\n    extract:\n      n: { from: content }\n',
      /^line 4, column 10: rule "a" at extract\.n: missing required key "regex" or "value"/,
    ],
    [
      'a condition with two keys',
      'rules:\n  - id: a\n    when: { content: x, title: y }\n',
      /^line 3, column 11: rule "a" at when: a condition has exactly one key/,
    ],
    [
      'two fields under when: suggests all:',
      'rules:\n  - id: a\n    when:\n      correspondent: x\n      title: y\n',
      /when: a condition has exactly one key, found correspondent, title; to require all of them write all: with one item each \(- correspondent: … \/ - title: …\)/,
    ],
    [
      'an unknown trigger',
      'rules:\n  - id: a\n    on: [sometimes]\n',
      /^line 3, column 10: rule "a" at on\[0\]: must be one of: "added", "updated", "manual"/,
    ],
    ['rules that are not a list', 'rules: 5\n', /^line 1, column 8: rules: must be a list, not 5/],
    ['a misspelt top-level key', 'ruls: []\n', /^line 1, column 1: unknown key "ruls"; did you mean "rules"\?$/],
    [
      'a misspelt action',
      'rules:\n  - id: a\n    actions:\n      - set_titel: x\n',
      /^line 4, column 9: rule "a" at actions\[0\]: unknown key "set_titel"; did you mean "set_title"\?$/,
    ],
  ];
  for (const [label, text, expected] of cases) {
    it(`reports ${label} with its line and column`, () => {
      const err = schemaError(text);
      assert.match(err.message, expected);
      assert.equal(typeof err.line, 'number');
      assert.equal(typeof err.column, 'number');
    });
  }

  it('requires a vars file to be a mapping', () => {
    assert.match(schemaError('- a\n- b\n', checkVarsFileSchema).message, /must be a mapping or null/);
    const source = parseYamlSource('year: 2025\n');
    checkVarsFileSchema(source, source.value);
  });
});
