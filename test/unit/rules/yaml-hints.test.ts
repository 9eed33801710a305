import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDocument } from 'yaml';
import { ValidationError, type FileProblem } from '../../../server/app-errors.js';
import { parseYamlSource } from '../../../server/rules/yaml-source.js';

function yamlProblems(lines: string[]): readonly FileProblem[] {
  try {
    parseYamlSource(lines.join('\n') + '\n');
  } catch (err) {
    assert.ok(err instanceof ValidationError, String(err));
    return err.problems;
  }
  assert.fail('the text parsed');
}

const place = (p: FileProblem) => `${p.line}:${p.column}`;

describe('YAML syntax errors with hints', () => {
  it('says to quote a value that contains ": ", and shows the line quoted', () => {
    const [problem, ...rest] = yamlProblems([
      'rules:',
      '  - id: a',
      '    actions:',
      '      - set_title: Rechnung: {{ ref }}',
    ]);
    assert.equal(rest.length, 0);
    assert.equal(place(problem), '4:20');
    assert.match(problem.message, /must be in quotes; quote the value: set_title: 'Rechnung: \{\{ ref \}\}'$/);
  });

  it('names the { that is never closed once, at the {, instead of the cascade the parser reports', () => {
    const lines = [
      'rules:',
      '  - id: a',
      '    when: { all: [',
      '        { title: { contains: x } },',
      '        { tags: { any: [a] } ]',
      '      }',
      '    actions:',
      '      - add_tags: [a]',
      '  - id: b',
      '    when: { title: { contains: y } }',
    ];
    assert.ok(parseDocument(lines.join('\n')).errors.length > 1, 'the parser itself reports a cascade');
    const problems = yamlProblems(lines);
    assert.equal(problems.length, 1, JSON.stringify(problems));
    assert.equal(place(problems[0]), '5:9');
    assert.match(problems[0].message, /this \{ is never closed: add the \}/);
  });

  it('points at an unclosed { from the line where the parser noticed it', () => {
    const [problem] = yamlProblems(['rules:', '  - id: a', '    when: { title: { contains: x }', '    actions: []']);
    assert.equal(place(problem), '3:11');
    assert.match(problem.message, /this \{ is never closed \(noticed at line 4\)/);
  });

  it('names the opening quote of a value that is never closed', () => {
    const [problem] = yamlProblems(['rules:', '  - id: a', '    description: "abc', '  - id: b']);
    assert.equal(place(problem), '3:18');
    assert.match(problem.message, /this " is never closed/);
  });

  it('tells an indentation slip from a value that needs quotes', () => {
    const [problem] = yamlProblems(['rules:', '  - id: a', '     when: {}']);
    assert.equal(problem.line, 3);
    assert.match(problem.message, /indented deeper than the key above it/);
  });

  it('lists every tab indent and every duplicate key, which do not cascade', () => {
    const tabs = yamlProblems(['rules:', '  - id: a', '\tactions: []', '\tdescription: x']);
    assert.deepEqual(tabs.map(place), ['3:1', '4:1']);
    assert.match(tabs[0].message, /indented with a tab; YAML allows only spaces/);
    const twice = yamlProblems(['rules:', '  - id: a', '    id: b', '    when: {}', '    when: {}']);
    assert.deepEqual(
      twice.map((p) => p.message.replace(/^YAML syntax error: /, '')),
      [
        'the key "id" appears twice in one mapping; remove one or merge them',
        'the key "when" appears twice in one mapping; remove one or merge them',
      ],
    );
  });

  it('explains a regex backslash in double quotes, and a list begun on the line of its key', () => {
    const [escape] = yamlProblems(['rules:', '  - id: a', '    when: { content: { matches: "Nr (\\d+)" } }']);
    assert.equal(place(escape), '3:38');
    assert.match(escape.message, /Invalid escape sequence \\d: .*single quotes \('\\d' keeps its backslash\)/);
    const [list] = yamlProblems(['rules:', '  - id: a', '    actions: - set_title: x']);
    assert.match(list.message, /a list cannot start on the line of its key/);
  });

  it('says to quote a value that starts with a reserved character or a template followed by text', () => {
    assert.match(
      yamlProblems(['rules:', '  - id: a', '    description: @home'])[0].message,
      /quote the value: description: '@home'/,
    );
    assert.match(
      yamlProblems(['rules:', '  - id: a', '    actions:', '      - set_title: {{ ref }} Rechnung'])[0].message,
      /quote the value: set_title: '\{\{ ref \}\} Rechnung'/,
    );
  });
});
