import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compileRule,
  emptyDocument,
  RuleCompileError,
  type Condition,
  type RuleDocument,
} from '../../../server/engine/engine.js';
import { partialRatio, splitWords } from '../../../server/engine/word-match.js';
import { run } from './helpers.js';

const doc = (content: string, extra: Partial<RuleDocument> = {}): RuleDocument => ({
  ...emptyDocument(),
  id: 1,
  content,
  ...extra,
});
const holds = (d: RuleDocument, when: Condition) => {
  const r = run(d, [{ id: 'r', when }]).results[0];
  assert.notEqual(r.status, 'error', r.error ?? '');
  return r.status === 'matched';
};

const text = 'Stadtwerke München GmbH — Ihre Rechnung Nr. 12 (Credit\n note) über Strom';

const cases: Array<[string, Condition, boolean]> = [
  ['any_word: one of the words as a whole word', { content: { any_word: 'invoice rechnung' } }, true],
  ['any_word: a part of a word does not count', { content: { any_word: 'rech strom-' } }, false],
  ['any_word: a quoted phrase matches across white space', { content: { any_word: '"credit note"' } }, true],
  ['any_word: a list is taken word by word', { content: { any_word: ['credit note', 'gutschrift'] } }, true],
  ['any_word: case-insensitive unless asked', { content: { any_word: 'RECHNUNG', case_sensitive: true } }, false],
  ['any_word: umlauts are word characters', { content: { any_word: 'münchen' } }, true],
  ['any_word: no word before an umlaut', { content: { any_word: 'm' } }, false],
  ['all_words: every word present', { content: { all_words: 'strom rechnung münchen' } }, true],
  ['all_words: one missing', { content: { all_words: 'strom rechnung gas' } }, false],
  ['fuzzy: a misspelt name still resembles', { content: { fuzzy: 'Stadtwerke Munchen' } }, true],
  ['fuzzy: punctuation and case are ignored', { content: { fuzzy: 'STADTWERKE-MÜNCHEN GMBH!' } }, true],
  ['fuzzy: something else does not', { content: { fuzzy: 'Telekom Deutschland' } }, false],
  ['fuzzy: a list holds when any does', { content: { fuzzy: ['Telekom Deutschland', 'Stadtwerk München'] } }, true],
];
for (const [name, when, expected] of cases) {
  test(`${name} → ${expected}`, () => assert.equal(holds(doc(text), when), expected));
}

test('word operators read title and notes too (a list one element per line)', () => {
  assert.equal(
    holds(doc('', { notes: ['erste Notiz', 'zweite wichtig'] }), { notes: { all_words: 'erste wichtig' } }),
    true,
  );
  assert.equal(holds(doc('', { title: 'Kfz Versicherung 2025' }), { title: { fuzzy: 'KFZ-Versicherung' } }), true);
  assert.equal(holds(doc(''), { content: { any_word: 'x' } }), false);
});

test('the trace says which words were found or missing, and what a fuzzy match scored', () => {
  const r = run(doc(text), [
    { id: 'r', when: { all: [{ content: { all_words: 'strom gas' } }, { content: { fuzzy: 'Stadtwerke Munchen' } }] } },
  ]).results[0];
  assert.match(r.conditions[1].description, /content all_words "strom gas" → false \(missing "gas"\)/);
  assert.match(
    r.conditions[2].description,
    /content fuzzy "Stadtwerke Munchen" → true \("Stadtwerke Munchen" scored 9\d of 100, at least 90 needed\)/,
  );
  assert.match(String(r.conditions[2].actual), /stadtwerke münchen/);
});

test("Paperless's split: quoted phrases stay together, white space collapses", () => {
  assert.deepEqual(splitWords('  some random  words "with   quotes  " and   spaces'), [
    'some',
    'random',
    'words',
    'with quotes',
    'and',
    'spaces',
  ]);
});

test('partial_ratio as rapidfuzz computes it', () => {
  assert.equal(partialRatio('this is a test', 'this is a test!')?.score, 100);
  assert.equal(Math.round(partialRatio('stadtwerke munchen', 'rechnung der stadtwerke münchen gmbh')?.score ?? 0), 94);
  assert.equal(partialRatio('abcd', 'xxxx wxyz'), null);
  // A long text without anything close stays a non-match (and the sliding count keeps it cheap).
  assert.equal(partialRatio('stadtwerke muenchen', 'lorem ipsum dolor sit amet '.repeat(20000)), null);
});

test('word operators are checked at save', () => {
  const error = (when: Condition) => {
    try {
      compileRule({ id: 'r', when });
    } catch (err) {
      assert.ok(err instanceof RuleCompileError);
      return err.message;
    }
    return '';
  };
  assert.match(error({ page_count: { any_word: 'x' } }), /"any_word" reads text; page_count is a number/);
  assert.match(error({ content: { fuzzy: '--' } }), /no letters or digits/);
  assert.match(error({ content: { all_words: '  ' } }), /needs at least one word/);
  assert.match(error({ content: { fuzzy: 'x'.repeat(201) } }), /at most 200 characters/);
});
