import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { fieldsFromText, idFromDocUrl, payloadFromFields } from '../../../../server/runs/webhook/parse-payload.js';

interface Example {
  name: string;
  document_id: number;
  trigger_type: number;
  request: { content_type: string | null; body: string };
}
const examples = (
  JSON.parse(fs.readFileSync(new URL('../../../fixtures/webhook/webhook-examples.json', import.meta.url), 'utf8')) as {
    examples: Example[];
  }
).examples;
const byName = (prefix: string) => examples.find((e) => e.name.startsWith(prefix)) as Example;

test('A: a JSON object with string values gives the document and the updated trigger', () => {
  const e = byName('A_');
  assert.deepEqual(payloadFromFields(fieldsFromText(e.request.body)), { document: e.document_id, trigger: 'updated' });
});

test('B: a raw JSON body with a numeric doc_id and document_added', () => {
  const e = byName('B_');
  assert.deepEqual(payloadFromFields(fieldsFromText(e.request.body)), { document: 7, trigger: 'added' });
});

test('C: form-urlencoded text without a JSON shape is read as form fields', () => {
  const e = byName('C_');
  assert.deepEqual(payloadFromFields(fieldsFromText(e.request.body)), { document: 2, trigger: 'unknown' });
});

test('D: a JSON string literal holding JSON is parsed twice', () => {
  const e = byName('D_');
  assert.deepEqual(payloadFromFields(fieldsFromText(e.request.body)), { document: 5, trigger: 'unknown' });
});

test('E: multipart fields (already decoded) give the document', () => {
  assert.deepEqual(payloadFromFields({ doc_id: '10' }), { document: 10, trigger: 'unknown' });
});

test('F: an empty body and an empty JSON object are refused with 400 and a hint', () => {
  for (const body of ['', '{}', '   ']) {
    assert.throws(
      () => payloadFromFields(fieldsFromText(body)),
      (err: Error & { status?: number }) => err.status === 400 && /doc_id/.test(err.message),
    );
  }
});

const idCases: Array<[string, Record<string, unknown>, number | undefined]> = [
  ['document_id key', { document_id: '12' }, 12],
  ['id key', { id: 13 }, 13],
  ['doc_id wins over doc_url', { doc_id: '3', doc_url: 'http://p/documents/4/' }, 3],
  ['doc_url only', { doc_url: 'http://paperless.lan:8000/documents/10/' }, 10],
  ['doc_url with None prefix', { doc_url: 'None/documents/10/' }, 10],
  ['doc_url with base path', { doc_url: 'https://x.example/paperless/documents/77/' }, 77],
  ['doc_url without trailing slash', { doc_url: 'http://p/documents/8' }, 8],
  ['empty doc_id (Consumption Started) falls back to doc_url', { doc_id: '', doc_url: 'None/documents/9/' }, 9],
  ['doc_id with spaces', { doc_id: ' 14 ' }, 14],
  ['negative id', { doc_id: '-1' }, undefined],
  ['zero', { doc_id: '0' }, undefined],
  ['fractional', { doc_id: '1.5' }, undefined],
  ['text', { doc_id: 'abc' }, undefined],
  ['doc_url of another page', { doc_url: 'http://p/documents/10/notes/x' }, undefined],
  ['doc_url with id in query only', { doc_url: 'http://p/view?documents/10/' }, undefined],
];

for (const [name, fields, expected] of idCases) {
  test(`document id: ${name}`, () => {
    if (expected === undefined) assert.throws(() => payloadFromFields(fields), /No document id/);
    else assert.equal(payloadFromFields(fields).document, expected);
  });
}

test('trigger spellings map to added, updated or unknown', () => {
  const cases: Array<[unknown, string]> = [
    ['document_added', 'added'],
    ['added', 'added'],
    ['Document Added', 'added'],
    ['document_updated', 'updated'],
    ['UPDATED', 'updated'],
    ['scheduled', 'unknown'],
    [5, 'unknown'],
  ];
  for (const [event, trigger] of cases)
    assert.equal(payloadFromFields({ doc_id: '1', event }).trigger, trigger, String(event));
  assert.equal(payloadFromFields({ doc_id: '1', trigger: 'added' }).trigger, 'added');
});

test('a JSON array or a bare number body', () => {
  assert.throws(
    () => fieldsFromText('[1,2]'),
    (err: Error & { status?: number }) => err.status === 400,
  );
  assert.deepEqual(payloadFromFields(fieldsFromText('42')), { document: 42, trigger: 'unknown' });
});

test('idFromDocUrl ignores non-strings', () => {
  assert.equal(idFromDocUrl(10), undefined);
  assert.equal(idFromDocUrl(null), undefined);
});

test('an empty doc_id without any other id names the "Consumption Started" trigger', () => {
  assert.throws(
    () => payloadFromFields({ doc_id: '', doc_url: '' }),
    (err: Error & { status?: number }) => err.status === 400 && /"Consumption Started"/.test(err.message),
  );
  assert.throws(() => payloadFromFields({ doc_id: '0' }), /No document id in the webhook body \(fields: doc_id\)/);
});
