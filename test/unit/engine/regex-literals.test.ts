import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RE2JS } from 're2js';
import { compileRegex } from '../../../server/engine/regex.js';
import { literalTest, requiredLiteral } from '../../../server/engine/regex-literals.js';

const TEXTS = [
  'Stadtwerke München\nRechnung Nr. 12\nRechnungsbetrag: 84,37 EUR',
  'ACME Corp.\nINVOICE\nTotal: USD 1,200.00',
  'Kassenbon REWE\nSUMME EUR 12,30',
  'RECHNUNG in capitals',
  'a \u212Aelvin sign: Ran\u212A and \u017Fign',
  'İnvoice with a dotted capital I, ınvoice with a dotless i',
  '',
];

describe('regex shortcuts answer exactly as RE2 does', () => {
  const patterns = [
    '(?i)rechnung|invoice',
    'Rechnung|INVOICE',
    '(?i)rank|sign',
    '(?i)invoice',
    'Rechnungsbetrag:\\s*([\\d.,]+)',
    'Total:\\s*USD\\s*([\\d.,]+)',
    'SUMMEE?',
  ];
  for (const pattern of patterns)
    it(`/${pattern}/ on every sample text`, () => {
      const re = RE2JS.compile(pattern);
      const rule = compileRegex(pattern);
      for (const text of TEXTS) {
        assert.equal(rule.test(text), re.test(text), JSON.stringify(text));
        assert.deepEqual(
          rule.values(text, 10),
          [...re.matchAll(text)].slice(0, 10).map((m) => m[1] ?? m[0]),
        );
      }
    });

  it('takes the shortcut only for plain literal alternatives', () => {
    assert.ok(literalTest('(?i)rechnung|invoice'));
    assert.ok(literalTest('Rechnung'));
    for (const p of ['(?i)rech.ung', 'a|', '(?i)(a|b)', 'ü|x', '(?s)abc', '^abc'])
      assert.equal(literalTest(p), null, p);
  });

  it('knows the literal every match contains, and only when there is one', () => {
    assert.equal(requiredLiteral('Rechnungsbetrag:\\s*([\\d.,]+)'), 'Rechnungsbetrag:');
    assert.equal(requiredLiteral('SUMMEE?'), 'SUMME');
    assert.equal(requiredLiteral('abc*'), null);
    assert.equal(requiredLiteral('(?i)Rechnungsbetrag'), null);
    assert.equal(requiredLiteral('Rechnung|Invoice'), null);
    assert.equal(requiredLiteral('^Rechnung'), null);
  });
});
