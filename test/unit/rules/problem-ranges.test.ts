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
  tags: [{ id: 1, name: 'Rechnung', is_inbox_tag: false, parent: null }],
  correspondents: [],
  document_types: [],
  storage_paths: [],
  custom_fields: [
    { id: 1, name: 'Betrag', data_type: 'monetary', extra_data: { default_currency: 'EUR' } },
    { id: 2, name: 'Notiz', data_type: 'string', extra_data: {} },
  ],
};
const validator = createSaveValidator(() => Promise.resolve(vocabulary), 1000, inlineRuleTests);
const file = parseRuleFilePath('ranges.yml') as RuleFilePath;
const context = { now: new Date('2026-01-01T00:00:00Z'), env: {}, takenIds: new Map(), vars: {}, globalVars: {} };

/** [line, column, end line, end column] of every problem the save finds, in file order. */
async function ranges(lines: string[]): Promise<Array<[number, number, number, number]>> {
  const problems = await problemsOf(lines);
  return problems.map((p) => [p.line, p.column, p.end_line, p.end_column]);
}

async function problemsOf(lines: string[]): Promise<readonly FileProblem[]> {
  try {
    await validator.validate(file, lines.join('\n') + '\n', context);
  } catch (err) {
    assert.ok(err instanceof ValidationError, String(err));
    return err.problems;
  }
  assert.fail('the file validated');
}

describe('problem ranges', () => {
  it('underlines an unknown custom field key, not its value or the whole line', async () => {
    assert.deepEqual(
      await ranges(['rules:', '  - id: a', '    when:', '      custom_fields.Betarg: { exists: true }']),
      [[4, 7, 4, 27]],
    );
    assert.deepEqual(
      await ranges(['rules:', '  - id: a', '    actions:', '      - set_custom_fields: { Notitz: x, Betrag: 5 }']),
      [[4, 30, 4, 36]],
    );
  });

  it('underlines a custom field named inside a check, where it stands', async () => {
    assert.deepEqual(
      await ranges(['rules:', '  - id: a', '    when: { check: "doc.custom_fields.Notiz.amount > 5" }']),
      [[3, 21, 3, 51]],
    );
  });

  it('underlines a template typo inside the braces, and an unknown filter by its name', async () => {
    assert.deepEqual(await ranges(['rules:', '  - id: a', '    actions:', '      - set_title: "Nr {{ doc.titel }}"']), [
      [4, 27, 4, 36],
    ]);
    assert.deepEqual(
      await ranges(['rules:', '  - id: a', '    actions:', '      - set_title: "{{ doc.title | upcse }}"']),
      [[4, 36, 4, 41]],
    );
  });

  it('underlines each unknown key of one mapping on its own, and a misplaced mapping on its first line', async () => {
    assert.deepEqual(await ranges(['rules:', '  - id: a', '    acions: []', '    descripton: x']), [
      [3, 5, 3, 11],
      [4, 5, 4, 15],
    ]);
    // Two keys under when: one problem, on the mapping's first line, not the block.
    assert.deepEqual(await ranges(['rules:', '  - id: a', '    when:', '      title: x', '      content: y']), [
      [4, 7, 4, 15],
    ]);
  });

  it('collects problems of every rule: compile errors, names, ids and failing tests together', async () => {
    const problems = await problemsOf([
      'rules:',
      '  - id: a',
      '    when: { content: { matches: "(" } }',
      '  - id: b',
      '    actions:',
      '      - add_tags: [Rechnug]',
      '  - id: b',
      '  - id: c',
      '    actions:',
      '      - set_title: X',
      '    tests:',
      '      - document: { title: Y }',
      '        expect: { matched: true, changes: { title: Z } }',
    ]);
    assert.deepEqual(
      problems.map((p) => [p.line, /regular expression|no tag|used twice|failed its test/.exec(p.message)?.[0]]),
      [
        [3, 'regular expression'],
        [6, 'no tag'],
        [7, 'used twice'],
        [13, 'failed its test'],
      ],
    );
  });
});
