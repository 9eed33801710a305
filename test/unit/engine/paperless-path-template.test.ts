import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readPathTemplate } from '../../../server/engine/paperless-path-template.js';

test('a path without template syntax is no template', () => {
  assert.equal(readPathTemplate('Lieferanten/alle'), null);
});

test("Paperless's own variables, filters, loops and old-style placeholders render; text between stays literal", () => {
  const r = readPathTemplate(
    "{{ correspondent }}/{% for t in tag_name_list %}{{ t | lower }}{% endfor %}/{{ custom_fields | get_cf_value('Ref', 'none') }}/{created_year}/{{ document.title | truncate(20) }}",
  );
  assert.ok(r);
  assert.deepEqual([r.unknownVariables, r.unknownFilters, r.liquidFilters, r.refused], [[], [], [], []]);
  assert.ok(r.rendered.includes('{{ created_year }}'));
  assert.deepEqual(r.literal, ['/', '/', '/', '/']);
});

test("a rule's value, a rule filter and Liquid's filter form are what Paperless refuses", () => {
  const r = readPathTemplate("Vendor/{{ ref }}/{{ title | money }}/{{ created | date: '%Y' }}/{{ added_year }}");
  assert.ok(r);
  assert.deepEqual(r.unknownVariables, ['ref']);
  assert.deepEqual(r.unknownFilters, ['money']);
  assert.deepEqual(r.liquidFilters, ['date']);
  assert.deepEqual(r.rendered, ['{{ added_year }}']);
  assert.equal(r.refused.length, 3);
});

test("bound names, keyword arguments, Jinja's tests and its global functions are no unknown variables", () => {
  const r = readPathTemplate(
    "{{ custom_fields | get_cf_value('Ref', default='x') }}/{% set year = created_year %}{{ year }}/{% if correspondent is not none and title is string %}{{ title }}{% endif %}/{% for i in range(2) %}{{ i }}{% endfor %}",
  );
  assert.ok(r);
  assert.deepEqual([r.unknownVariables, r.unknownFilters, r.refused], [[], [], []]);
});
