import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ValidationError } from '../../../server/app-errors.js';
import { MAX_DEPTH, parseYamlSource } from '../../../server/rules/yaml-source.js';
import { ALIAS_BOMB } from './alias-bomb.js';

function failure(text: string): ValidationError {
  try {
    parseYamlSource(text);
  } catch (err) {
    assert.ok(err instanceof ValidationError, `expected a ValidationError, got ${String(err)}`);
    return err;
  }
  assert.fail('the text parsed');
}

describe('YAML stage', () => {
  it('parses an empty file to null', () => {
    assert.equal(parseYamlSource('').value, null);
    assert.equal(parseYamlSource('# only a comment\n').value, null);
  });

  it('reports a syntax error with line and column', () => {
    const err = failure('rules:\n  - id: a\n    when: "unterminated\n');
    assert.equal(err.status, 422);
    assert.ok(err.line! >= 3, `line ${err.line}`);
    assert.match(err.message, /^line \d+, column \d+: YAML syntax error: this " is never closed: add the closing "/);
  });

  it('refuses duplicate keys and several documents', () => {
    assert.match(failure('a: 1\na: 2\n').message, /line 2, column 1: .*the key "a" appears twice/);
    assert.match(failure('a: 1\n---\nb: 2\n').message, /line 2, column 1: .*multiple documents/);
  });

  it('turns an alias bomb into an error, quickly, pointing at the first alias', () => {
    const started = process.hrtime.bigint();
    const err = failure(ALIAS_BOMB);
    assert.match(err.message, /alias bomb/);
    assert.equal(err.line, 2);
    // Not a timed assertion of speed, only proof it did not expand 9^9 nodes (that takes minutes and GBs).
    assert.ok(process.hrtime.bigint() - started < 30_000_000_000n);
  });

  it('reads YAML 1.2: "on" is a key, dates stay text', () => {
    assert.deepEqual(parseYamlSource('on: [added]\ncreated: 2025-03-07\nflag: yes\n').value, {
      on: ['added'],
      created: '2025-03-07',
      flag: 'yes',
    });
  });

  it('allows a few ordinary aliases', () => {
    const source = parseYamlSource('base: &b { x: 1 }\none: *b\ntwo: *b\n');
    assert.deepEqual(source.value, { base: { x: 1 }, one: { x: 1 }, two: { x: 1 } });
  });

  it('refuses nesting deeper than the limit', () => {
    const deep = `a: ${'['.repeat(MAX_DEPTH + 5)}${']'.repeat(MAX_DEPTH + 5)}`;
    assert.match(failure(deep).message, /nesting deeper than/);
  });

  it('refuses hundreds of thousands of brackets before parsing them', () => {
    const err = failure(`a: 1\nb: ${'['.repeat(300_000)}`);
    assert.match(err.message, /^line 2, column 260: .*brackets nested deeper/);
  });

  it('maps paths to the ranges of values and keys', () => {
    const source = parseYamlSource('rules:\n  - id: first\n    description: hello\n    when:\n      title: x\n');
    const at = (line: number, column: number, endLine: number, endColumn: number) => ({
      line,
      column,
      endLine,
      endColumn,
    });
    assert.deepEqual(source.positionOf(['rules', 0, 'description']), at(3, 18, 3, 23));
    assert.deepEqual(source.keyPositionOf(['rules', 0, 'when'], 'title'), at(5, 7, 5, 12));
    // A path that does not exist points at the deepest node that does; a mapping spans its first line only.
    assert.deepEqual(source.positionOf(['rules', 0, 'when', 'nothing', 3]), at(5, 7, 5, 15));
  });

  it('spans a flow mapping on its line up to a comment, never the whole block', () => {
    const source = parseYamlSource('rules:\n  - id: a\n    when: { title: x }   # the title\n    actions: []\n');
    assert.deepEqual(source.positionOf(['rules', 0, 'when']), { line: 3, column: 11, endLine: 3, endColumn: 23 });
    // A list item's mapping: its first line, not the rule's whole block.
    assert.deepEqual(source.positionOf(['rules', 0]), { line: 2, column: 5, endLine: 2, endColumn: 10 });
  });

  it('finds a word inside the template braces of a value', () => {
    const source = parseYamlSource('a: "doc {{ doc.titel }} and doc.titel"\nb: plain\n');
    // Inside the braces, not the plain text after them.
    assert.deepEqual(source.wordPositionOf(['a'], 'doc.titel'), { line: 1, column: 12, endLine: 1, endColumn: 21 });
    // A word that is not there: the whole value.
    assert.deepEqual(source.wordPositionOf(['b'], 'nope'), { line: 2, column: 4, endLine: 2, endColumn: 9 });
  });

  it('reports every YAML syntax error, each with its range', () => {
    const err = failure('a: 1\na: 2\nb: 1\nb: 2\n');
    assert.equal(err.problems.length, 2);
    assert.deepEqual(
      err.problems.map((p) => [p.line, p.column, p.end_line]),
      [
        [2, 1, 2],
        [4, 1, 4],
      ],
    );
    assert.match(err.message, /^line 2, column 1: .*\(and 1 more problem in this file\)$/);
  });
});
