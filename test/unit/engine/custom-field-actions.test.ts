import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileRule } from '../../../server/engine/engine.js';
import { RuleCompileError } from '../../../server/engine/rule-errors.js';
import { run } from './helpers.js';
import { sample } from './fixtures/sample-documents.js';

test('remove_custom_fields detaches the field; the change names the detached side', () => {
  const result = run(sample(1), [{ id: 'r', actions: [{ remove_custom_fields: ['Rechnungsnummer', 'Fällig am'] }] }]);
  assert.equal(result.results[0].actions[0].status, 'planned');
  assert.deepEqual(result.changes.remove_custom_fields, ['Fällig am', 'Rechnungsnummer']);
  assert.equal('Rechnungsnummer' in result.document.custom_fields, false);
  assert.deepEqual(result.results[0].changes['custom_fields.Fällig am'], { from: '2025-02-05', to: null });
});

test('add_custom_fields attaches an empty field and leaves an attached one as it is', () => {
  const doc = sample(3);
  const result = run(doc, [{ id: 'r', actions: [{ add_custom_fields: 'Rechnungsnummer' }] }]);
  assert.deepEqual(result.changes.custom_fields, { Rechnungsnummer: null });
  assert.deepEqual(result.results[0].changes['custom_fields.Rechnungsnummer'], { from: null, to: null, empty: 'to' });
  const again = run(sample(1), [{ id: 'r', actions: [{ add_custom_fields: 'Rechnungsnummer' }] }]);
  assert.equal(again.results[0].actions[0].status, 'unchanged');
  assert.deepEqual(again.changes, {});
});

test('an empty value for a field that is not attached changes nothing (no phantom null → null change)', () => {
  const result = run(sample(3), [{ id: 'r', actions: [{ set_custom_fields: { Rechnungsnummer: '' } }] }]);
  assert.equal(result.results[0].actions[0].status, 'unchanged');
  assert.deepEqual(result.results[0].changes, {});
});

test('the custom-field actions take a name or a non-empty list of names', () => {
  assert.throws(() => compileRule({ id: 'r', actions: [{ remove_custom_fields: [] }] }), RuleCompileError);
  assert.throws(
    () => compileRule({ id: 'r', actions: [{ add_custom_fields: [''] }] }),
    /takes a custom field name or a list of them/,
  );
});
