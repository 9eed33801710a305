import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeCustomFieldValue, DmsValueError, encodeCustomFieldValue } from '../../../server/dms/vocabulary-index.js';
import type { CustomFieldDataType, DmsCustomField } from '../../../server/dms/types.js';

const OPTIONS = [
  { id: 'Kq3ZP8rWmTn2xYbD', label: 'offen' },
  { id: 'h7LcV2sQe9RkBw4M', label: 'bezahlt' },
];

function field(data_type: CustomFieldDataType, extra: Partial<DmsCustomField['extra_data']> = {}): DmsCustomField {
  return {
    id: 1,
    name: `F ${data_type}`,
    data_type,
    extra_data: { select_options: [], default_currency: null, ...extra },
  };
}

const betrag = field('monetary', { default_currency: 'EUR' });
const plainMoney = field('monetary');
const status = field('select', { select_options: OPTIONS });

describe('decoding dms values into the engine value space', () => {
  test('monetary "EUR84.37" becomes amount and currency', () => {
    assert.deepEqual(decodeCustomFieldValue(betrag, 'EUR84.37'), { amount: 84.37, currency: 'EUR' });
    assert.deepEqual(decodeCustomFieldValue(betrag, 'USD-12.50'), { amount: -12.5, currency: 'USD' });
  });

  test('legacy monetary "84.37" takes the field default currency, or null without one', () => {
    assert.deepEqual(decodeCustomFieldValue(betrag, '84.37'), { amount: 84.37, currency: 'EUR' });
    assert.deepEqual(decodeCustomFieldValue(plainMoney, '11.1'), { amount: 11.1, currency: null });
  });

  test('select option id becomes its label; date, documentlink and null as documented', () => {
    assert.equal(decodeCustomFieldValue(status, 'h7LcV2sQe9RkBw4M'), 'bezahlt');
    assert.equal(decodeCustomFieldValue(field('date'), '2025-02-05'), '2025-02-05');
    assert.deepEqual(decodeCustomFieldValue(field('documentlink'), [3, 7]), [3, 7]);
    assert.equal(decodeCustomFieldValue(betrag, null), null);
    assert.equal(decodeCustomFieldValue(field('integer'), 42), 42);
    assert.equal(decodeCustomFieldValue(field('boolean'), true), true);
    assert.equal(decodeCustomFieldValue(field('string'), 'SWM-1'), 'SWM-1');
  });
});

describe('encoding engine values into what Paperless accepts', () => {
  test('monetary gets the currency prefix and exactly two decimals', () => {
    assert.equal(encodeCustomFieldValue(betrag, { amount: 84.37, currency: 'EUR' }), 'EUR84.37');
    assert.equal(encodeCustomFieldValue(betrag, { amount: 1250, currency: 'USD' }), 'USD1250.00');
    assert.equal(
      encodeCustomFieldValue(betrag, { amount: 84.3, currency: null }),
      'EUR84.30',
      'falls back to the field default',
    );
    assert.equal(encodeCustomFieldValue(betrag, '1234.56'), 'EUR1234.56', 'a rendered template string');
    assert.equal(encodeCustomFieldValue(betrag, 19.999), 'EUR20.00');
    assert.equal(encodeCustomFieldValue(betrag, 'GBP5.5'), 'GBP5.50');
  });

  test('monetary without any currency is refused: Paperless would misread a value without a prefix', () => {
    assert.equal(encodeCustomFieldValue(plainMoney, 'USD7'), 'USD7.00');
    assert.throws(
      () => encodeCustomFieldValue(plainMoney, 7),
      /has no currency; write it with one \(e\.g\. EUR12\.50\) or give the field a default currency/,
    );
  });

  test('lengths are counted in code points as Paperless does: strings up to 128, URLs up to 200', () => {
    const emoji = '😀'.repeat(128);
    assert.equal(
      encodeCustomFieldValue(field('string'), emoji),
      emoji,
      '128 emoji are 256 UTF-16 units but 128 characters',
    );
    assert.throws(() => encodeCustomFieldValue(field('string'), `${emoji}x`), /129 characters long; at most 128 fit/);
    const url = `https://example.com/${'a'.repeat(180)}`;
    assert.equal(encodeCustomFieldValue(field('url'), url), url);
    assert.throws(
      () => encodeCustomFieldValue(field('url'), `${url}b`),
      (err: unknown) => {
        assert.ok(err instanceof DmsValueError);
        assert.match(err.message, /F url.*is 201 characters long; Paperless keeps URLs of at most 200/);
        return true;
      },
    );
  });

  test('monetary in a locale format is refused with an actionable message', () => {
    assert.throws(
      () => encodeCustomFieldValue(betrag, '84,37 €'),
      (err: unknown) => {
        assert.ok(err instanceof DmsValueError);
        assert.match(err.message, /F monetary.*"84,37 €".*decimal point/);
        return true;
      },
    );
    assert.throws(() => encodeCustomFieldValue(betrag, { amount: 1, currency: 'euro' }), /3-letter/);
  });

  test('select takes a label case-insensitively (or an option id) and sends the option id', () => {
    assert.equal(encodeCustomFieldValue(status, 'Bezahlt'), 'h7LcV2sQe9RkBw4M');
    assert.equal(encodeCustomFieldValue(status, 'Kq3ZP8rWmTn2xYbD'), 'Kq3ZP8rWmTn2xYbD');
    assert.throws(() => encodeCustomFieldValue(status, 'storniert'), /not one of its options: "offen", "bezahlt"/);
  });

  test('date accepts ISO only and real dates only', () => {
    assert.equal(encodeCustomFieldValue(field('date'), '2025-03-20'), '2025-03-20');
    assert.equal(encodeCustomFieldValue(field('date'), '2025-03-20T10:00:00Z'), '2025-03-20');
    assert.throws(() => encodeCustomFieldValue(field('date'), '20.03.2025'), /yyyy-MM-dd/);
    assert.throws(() => encodeCustomFieldValue(field('date'), '2025-02-30'), /not a real date/);
  });

  test('integer must be whole and 32-bit', () => {
    assert.equal(encodeCustomFieldValue(field('integer'), '42'), 42);
    assert.throws(() => encodeCustomFieldValue(field('integer'), 1.5), /whole number/);
    assert.throws(() => encodeCustomFieldValue(field('integer'), 2 ** 31), /32-bit/);
    assert.equal(encodeCustomFieldValue(field('integer'), -(2 ** 31)), -(2 ** 31));
  });

  test('float, boolean, url, string, documentlink and null', () => {
    assert.equal(encodeCustomFieldValue(field('float'), '3.25'), 3.25);
    assert.throws(() => encodeCustomFieldValue(field('float'), 'abc'), /not a number/);
    assert.equal(encodeCustomFieldValue(field('boolean'), 'true'), true);
    assert.equal(encodeCustomFieldValue(field('boolean'), false), false);
    assert.throws(() => encodeCustomFieldValue(field('boolean'), 'maybe'), /true or false/);
    assert.equal(encodeCustomFieldValue(field('url'), 'https://example.com/x'), 'https://example.com/x');
    assert.equal(encodeCustomFieldValue(field('url'), ''), '');
    assert.throws(() => encodeCustomFieldValue(field('url'), 'example.com'), /scheme/);
    assert.equal(encodeCustomFieldValue(field('string'), 'x'.repeat(128)), 'x'.repeat(128));
    assert.throws(() => encodeCustomFieldValue(field('string'), 'x'.repeat(129)), /129 characters.*at most 128/);
    assert.equal(encodeCustomFieldValue(field('longtext'), 'y'.repeat(500)), 'y'.repeat(500));
    assert.deepEqual(encodeCustomFieldValue(field('documentlink'), [1, 2]), [1, 2]);
    assert.deepEqual(encodeCustomFieldValue(field('documentlink'), '4, 5'), [4, 5]);
    assert.throws(() => encodeCustomFieldValue(field('documentlink'), 'x'), /document ids/);
    assert.equal(encodeCustomFieldValue(betrag, null), null);
  });

  test('decode then encode round-trips every fixture value', () => {
    const cases: Array<[DmsCustomField, unknown]> = [
      [betrag, 'EUR84.37'],
      [betrag, 'USD1250.00'],
      [status, 'h7LcV2sQe9RkBw4M'],
      [field('date'), '2025-02-05'],
      [field('string'), 'SWM-2025-0012345'],
    ];
    for (const [f, wire] of cases) assert.deepEqual(encodeCustomFieldValue(f, decodeCustomFieldValue(f, wire)), wire);
  });
});
