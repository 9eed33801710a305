import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseBool,
  parseDate,
  parseInteger,
  parseMoney,
  parseNumber,
  resolveRelativeDate,
} from '../../../server/engine/engine.js';

const numbers: Array<[string, number | null]> = [
  ['1.234,56', 1234.56],
  ['1,234.56', 1234.56],
  ['1234.56', 1234.56],
  ['84,37', 84.37],
  ['1.234', 1234],
  ['1,234', 1234],
  ['0,125', 0.125],
  ['12.345.678,9', 12345678.9],
  ['1 234,50', 1234.5],
  ["1'234.50", 1234.5],
  ['-12,5', -12.5],
  ['abc', null],
  ['1.2.3,4,5', null],
];
for (const [text, expected] of numbers) {
  test(`parses the number ${JSON.stringify(text)} as ${expected}`, () => assert.equal(parseNumber(text), expected));
}

test('parses whole numbers and refuses fractions for int', () => {
  assert.equal(parseInteger('1.234'), 1234);
  assert.equal(parseInteger('12,5'), null);
});

const money: Array<[string, { amount: number; currency: string | null } | null]> = [
  ['84,37 €', { amount: 84.37, currency: 'EUR' }],
  ['EUR 84.37', { amount: 84.37, currency: 'EUR' }],
  ['$1,234.56', { amount: 1234.56, currency: 'USD' }],
  ['1.234,56 EUR', { amount: 1234.56, currency: 'EUR' }],
  ['USD 1,250.00', { amount: 1250, currency: 'USD' }],
  ['£12.00', { amount: 12, currency: 'GBP' }],
  ['CHF 12.-', { amount: 12, currency: 'CHF' }],
  ['EUR84.37', { amount: 84.37, currency: 'EUR' }],
  ['99,50', { amount: 99.5, currency: null }],
  ['€ free', null],
];
for (const [text, expected] of money) {
  test(`parses the money ${JSON.stringify(text)}`, () => assert.deepEqual(parseMoney(text), expected));
}

test('money without a currency takes the fallback currency', () => {
  assert.deepEqual(parseMoney('12,30', 'EUR'), { amount: 12.3, currency: 'EUR' });
});

const dates: Array<[string, string | undefined, string | null]> = [
  ['01.03.2024', undefined, '2024-03-01'],
  ['1.3.2024', undefined, '2024-03-01'],
  ['2024-03-01', undefined, '2024-03-01'],
  ['3. März 2024', undefined, '2024-03-03'],
  ['3 Dezember 2024', undefined, '2024-12-03'],
  ['March 3, 2024', undefined, '2024-03-03'],
  ['Mar 3rd, 2024', undefined, '2024-03-03'],
  ['3 March 2024', undefined, '2024-03-03'],
  ['20/01/2025', undefined, '2025-01-20'],
  ['03/04/2024', undefined, null],
  ['03/04/2024', 'MM/dd/yyyy', '2024-03-04'],
  ['03/04/2024', 'dd/MM/yyyy', '2024-04-03'],
  ['03.03.24', 'dd.MM.yy', '2024-03-03'],
  ['4. Februar 2025', 'd. MMMM yyyy', '2025-02-04'],
  ['31.02.2024', undefined, null],
  ['2024-13-01', undefined, null],
  ['01.03.2024', 'yyyy-MM-dd', null],
];
for (const [text, format, expected] of dates) {
  test(`parses the date ${JSON.stringify(text)}${format ? ` with ${format}` : ''} as ${expected}`, () =>
    assert.equal(parseDate(text, format), expected));
}

const now = new Date('2024-03-31T10:00:00Z');
const relative: Array<[string, string]> = [
  ['-30d', '2024-03-01'],
  ['+2w', '2024-04-14'],
  ['-1m', '2024-02-29'],
  ['-6m', '2023-09-30'],
  ['-1y', '2023-03-31'],
  ['+0d', '2024-03-31'],
];
for (const [text, expected] of relative) {
  test(`resolves the relative date ${text} against the injected now`, () =>
    assert.equal(resolveRelativeDate(text, now), expected));
}

test('parses yes/no words in English and German', () => {
  assert.equal(parseBool('Ja'), true);
  assert.equal(parseBool('no'), false);
  assert.equal(parseBool('maybe'), null);
});
