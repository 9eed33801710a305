import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatValue } from '../../../renderer/src/value-format.js';

describe('trace values as people write them', () => {
  it('writes money with its currency in the reader’s locale', () => {
    assert.equal(formatValue({ amount: 39.95, currency: 'EUR' }, 'de-DE'), '39,95 EUR');
    assert.equal(formatValue({ amount: 39.95, currency: 'EUR' }, 'en-US'), 'EUR 39.95');
    assert.equal(formatValue('EUR1234.5', 'en-US'), 'EUR 1,234.50');
    assert.equal(formatValue({ amount: 7, currency: null }, 'en-US'), '7.00');
  });
  it('writes dates as dates, not as JSON', () => {
    assert.equal(formatValue('2024-03-01', 'en-US'), 'Mar 1, 2024');
    assert.equal(formatValue('2024-03-01', 'de-DE'), '01.03.2024');
  });
  it('quotes other text, lists names, and says empty for null', () => {
    assert.equal(formatValue('ACME', 'en-US'), '"ACME"');
    assert.equal(formatValue(['a', 'b'], 'en-US'), '"a", "b"');
    assert.equal(formatValue(null), 'empty');
    assert.equal(formatValue(12), '12');
  });
  it('writes objects as name = value pairs, money inside them as money, never as JSON', () => {
    assert.equal(
      formatValue({ total: { amount: 84.37, currency: 'EUR' }, doc: 'x' }, 'en-US'),
      'total = EUR 84.37, doc = "x"',
    );
  });
});
