import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contentMatches } from '../../../server/engine/content-matches.js';
import type { RuleDefinition } from '../../../server/engine/model.js';

const TEXT = 'Telekom Rechnung März 2025\nRechnungsbetrag: 39,95 EUR\nFällig am 18.03.2025';
const slice = (m: { start: number; end: number }) => TEXT.slice(m.start, m.end);

describe('contentMatches: where rules hit a document text', () => {
  it('finds regex conditions anywhere in the condition tree, with offsets past non-ASCII letters', () => {
    const rule: RuleDefinition = {
      id: 'r',
      when: { all: [{ not: { title: 'x' } }, { any: [{ content: { matches: '(?i)fällig am \\d{2}' } }] }] },
    };
    const [m] = contentMatches([rule], TEXT);
    assert.equal(slice(m), 'Fällig am 18');
    assert.deepEqual({ rule_id: m.rule_id, kind: m.kind }, { rule_id: 'r', kind: 'condition' });
  });

  it('finds contains words case-insensitively unless case_sensitive, and every occurrence', () => {
    const loose: RuleDefinition = { id: 'a', when: { content: { contains: 'rechnung' } } };
    assert.deepEqual(contentMatches([loose], TEXT).map(slice), ['Rechnung', 'Rechnung']);
    const strict: RuleDefinition = {
      id: 'b',
      when: { content: { contains_any: ['rechnung', 'EUR'], case_sensitive: true } },
    };
    assert.deepEqual(contentMatches([strict], TEXT).map(slice), ['EUR']);
  });

  it('finds regex extractions that read content, labelled with the value name, and skips other fields and templates', () => {
    const rule: RuleDefinition = {
      id: 'x',
      when: { content: { contains: '{{ vars.word }}' } },
      extract: {
        total: { regex: 'Rechnungsbetrag:\\s*(?<value>[\\d,]+)', type: 'money' },
        from_title: { from: 'title', regex: 'Telekom' },
        computed: { value: '{{ total }}' },
      },
    };
    const matches = contentMatches([rule], TEXT);
    assert.deepEqual(
      matches.map((m) => [m.kind, m.label, slice(m)]),
      [['extract', 'total', 'Rechnungsbetrag: 39,95']],
    );
  });

  it('orders spans by position across rules and ignores a pattern that does not compile', () => {
    const rules: RuleDefinition[] = [
      { id: 'late', when: { content: { matches: ['Fällig', '(?<=x)bad'] } } },
      { id: 'early', when: { content: { matches: 'Telekom' } } },
    ];
    assert.deepEqual(
      contentMatches(rules, TEXT).map((m) => m.rule_id),
      ['early', 'late'],
    );
  });

  it('finds any_word and all_words as whole words only, and the window a fuzzy condition scored best', () => {
    const rule: RuleDefinition = {
      id: 'w',
      when: {
        any: [
          { content: { any_word: ['rechnung', 'märz 2025'] } },
          { content: { all_words: 'fällig' } },
          { content: { fuzzy: 'Rechnugsbetrag' } },
        ],
      },
    };
    assert.deepEqual(
      contentMatches([rule], TEXT).map((m) => [m.label, slice(m)]),
      [
        ['rechnung', 'Rechnung'],
        ['märz 2025', 'März 2025'],
        ['Rechnugsbetrag (fuzzy)', 'Rechnungsbetra'], // the window as long as the needle
        ['fällig', 'Fällig'],
      ],
      '"Rechnung" inside "Rechnungsbetrag" is no whole word',
    );
  });
});
