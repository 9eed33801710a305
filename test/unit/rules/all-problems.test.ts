import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DmsVocabulary } from '../../../server/dms/types.js';
import { ValidationError, type FileProblem } from '../../../server/app-errors.js';
import { inlineRuleTests } from '../../../server/rules/engine-stages.js';
import { parseRuleFilePath, type RuleFilePath } from '../../../server/rules/file-names.js';
import { createSaveValidator } from '../../../server/rules/save-validation.js';

const vocabulary: DmsVocabulary = {
  users: [],
  groups: [],
  tags: [
    { id: 1, name: 'Rechnung', is_inbox_tag: false, parent: null },
    { id: 2, name: 'Steuer', is_inbox_tag: false, parent: null },
  ],
  correspondents: [{ id: 1, name: 'Telekom' }],
  document_types: [{ id: 1, name: 'Vertrag' }],
  storage_paths: [{ id: 1, name: 'Finanzen' }],
  custom_fields: [{ id: 1, name: 'Betrag', data_type: 'monetary', extra_data: { default_currency: 'EUR' } }],
};
const validator = createSaveValidator(() => Promise.resolve(vocabulary), 1000, inlineRuleTests);
const file = parseRuleFilePath('all.yml') as RuleFilePath;
const context = { now: new Date('2026-01-01T00:00:00Z'), env: {}, takenIds: new Map(), vars: {}, globalVars: {} };

async function refusal(lines: string[]): Promise<ValidationError> {
  try {
    await validator.validate(file, lines.join('\n') + '\n', context);
  } catch (err) {
    assert.ok(err instanceof ValidationError, String(err));
    return err;
  }
  assert.fail('the file validated');
}

const summary = (problems: readonly FileProblem[]) => problems.map((p) => `${p.line}:${p.column} ${p.message}`);

describe('every problem of a rule file at once', () => {
  it('lists a schema problem in one rule beside an unknown tag in another, in file order', async () => {
    const err = await refusal([
      'rules:',
      '  - id: first',
      '    whenn: { title: { contains: x } }',
      '  - id: second',
      '    actions:',
      '      - add_tags: [Stuer]',
    ]);
    assert.deepEqual(summary(err.problems), [
      '3:5 rule "first": unknown key "whenn"; did you mean "when"?',
      '6:20 the dms has no tag "Stuer". Add "create_missing: true" to the action to create it. Did you mean "Steuer"?',
    ]);
    assert.equal(err.message, `line 3, column 5: ${err.problems[0].message} (and 1 more problem in this file)`);
    assert.equal(err.line, 3);
  });

  it('runs the tests of the rules that are fine beside a rule with a schema problem', async () => {
    const err = await refusal([
      'rules:',
      '  - id: broken',
      '    actions: [{ ad_tags: [Steuer] }]',
      '  - id: titled',
      '    actions:',
      '      - set_title: Neu',
      '    tests:',
      '      - document: { title: Alt }',
      '        expect: { matched: true, changes: { title: Anders } }',
    ]);
    assert.deepEqual(
      err.problems.map((p) => [p.line, /did you mean "add_tags"|failed its test/.exec(p.message)?.[0]]),
      [
        [3, 'did you mean "add_tags"'],
        [9, 'failed its test'],
      ],
    );
  });

  it('suggests the nearest name for every kind the dms names', async () => {
    const err = await refusal([
      'rules:',
      '  - id: names',
      '    when:',
      '      all:',
      '        - correspondent: Telecom',
      '        - custom_fields.Betrg: { exists: true }',
      '    actions:',
      '      - set_document_type: Vertag',
      '      - set_storage_path: Finanzn',
    ]);
    assert.deepEqual(
      err.problems.map((p) => /did you mean "[^"]+"\?/i.exec(p.message)?.[0]),
      ['Did you mean "Telekom"?', 'Did you mean "Betrag"?', 'Did you mean "Vertrag"?', 'Did you mean "Finanzen"?'],
    );
  });

  it('suggests the document field meant wherever a rule names one', async () => {
    const err = await refusal([
      'rules:',
      '  - id: reads',
      '    extract:',
      '      a: { from: titel, regex: "x" }',
      '  - id: compares',
      '    when: { created: { equals: { field: addd } } }',
      '  - id: asks',
      '    extract:',
      '      n: { query: count, where: { titel: { contains: x } } }',
    ]);
    assert.deepEqual(
      err.problems.map((p) => /did you mean "[^"]+"\?/.exec(p.message)?.[0]),
      ['did you mean "title"?', 'did you mean "added"?', 'did you mean "title"?'],
    );
  });

  it('reports every bad regex of one rule, each at its place, in file order', async () => {
    const err = await refusal([
      'rules:',
      '  - id: patterns',
      '    when: { content: { matches: "(open" } }',
      '    extract:',
      '      a: { regex: "[class" }',
      '      b: { regex: ["fine", "(?<=behind)x"] }',
    ]);
    assert.deepEqual(
      err.problems.map((p) => [p.line, p.column]),
      [
        [3, 33],
        [5, 19],
        [6, 28],
      ],
    );
    assert.ok(err.problems.every((p) => p.message.startsWith('rule "patterns": invalid regular expression')));
  });

  it('says how to write an unquoted template the YAML read as a mapping', async () => {
    const err = await refusal(['rules:', '  - id: t', '    actions:', '      - set_title: {{ ref }}']);
    assert.match(
      err.problems[0].message,
      /\{\{ ref \}\} is read as a YAML mapping because it is not quoted; quote it: "\{\{ ref \}\}"/,
    );
  });

  it('suggests the trigger meant and the operator meant', async () => {
    const err = await refusal(['rules:', '  - id: t', '    on: [add]', '    when: { title: { contain: x } }']);
    assert.deepEqual(
      err.problems.map((p) => /did you mean .*\?/.exec(p.message)?.[0]),
      ['did you mean "added"?', 'did you mean "contains" or "contains_any"?'],
    );
  });
});

describe('test names cut by a comment', () => {
  it('warns, at the #, that an unquoted test name stops before " #"', async () => {
    const warnings = await validator.validate(
      file,
      [
        'rules:',
        '  - id: numbered',
        '    actions:',
        '      - set_title: Neu',
        '    tests:',
        '      - name: Rechnung #1 wird erkannt',
        '        document: { title: Alt }',
        '        expect: { matched: true, changes: { title: Neu } }',
        '      - name: "Rechnung #2 quoted"',
        '        document: { title: Alt }',
        '        expect: { matched: true, changes: { title: Neu } }',
        '      - name: Rechnung#3',
        '        document: { title: Alt }',
        '        expect: { matched: true, changes: { title: Neu } }',
      ].join('\n') + '\n',
      context,
    );
    assert.deepEqual(warnings, [
      'line 6, column 24: the test name stops before "#1 wird erkannt", which YAML reads as a comment; quote the name; # starts a comment: name: "Rechnung #1 wird erkannt"',
    ]);
  });
});
