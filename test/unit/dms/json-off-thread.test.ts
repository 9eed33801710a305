import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseJsonOffThread } from '../../../server/dms/json-off-thread.js';

test('parses a body in a worker as the main thread would: BOM dropped, invalid UTF-8 as U+FFFD', async () => {
  const value = { id: 5, content: 'Grüße ✓', list: [1, 2, { deep: null }] };
  assert.deepEqual(await parseJsonOffThread(Buffer.from(JSON.stringify(value))), value);
  assert.deepEqual(await parseJsonOffThread(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('[1]')])), [1]);
  const invalid = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff]), Buffer.from('"}')]);
  assert.deepEqual(await parseJsonOffThread(invalid), { a: '\ufffd' });
  assert.equal(await parseJsonOffThread(Buffer.alloc(0)), null);
});

test('a body that is not JSON rejects with a SyntaxError', async () => {
  await assert.rejects(parseJsonOffThread(Buffer.from('{"a": ')), SyntaxError);
});

test('a slice of a larger buffer is parsed as the slice, and the caller keeps the rest', async () => {
  const whole = Buffer.from('xx[1,2,3]yy');
  assert.deepEqual(await parseJsonOffThread(whole.subarray(2, 9)), [1, 2, 3]);
  assert.equal(whole.toString(), 'xx[1,2,3]yy');
});
