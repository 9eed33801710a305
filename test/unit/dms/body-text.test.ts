import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { BodyTooLargeError, decodeBody, readBodyBytes, readBodyText } from '../../../server/dms/body-text.js';

/** What undici's `text()` gives: UTF-8 with a leading BOM skipped (its `chunksDecode`). */
const undiciText = (bytes: Buffer) =>
  (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes).toString('utf8');

const large = (text: string) => text.repeat(Math.ceil(40_000 / Math.max(1, text.length)));

test('decodes every kind of body exactly as undici does, small and large', () => {
  const texts = [
    '',
    '{"results":[]}',
    large('{"content":"plain ASCII text, nothing else"}'),
    large('Geschäftsbedingungen gemäß für Straße '),
    large('Rechnung – 12,50 € „Zitat“ 🧾 '),
    `${large('a')}\u2028\u0000"\\`,
  ];
  const bodies = texts.map((t) => Buffer.from(t, 'utf8'));
  // A BOM in front, and bytes that are not UTF-8: a lone continuation byte, 0xff, an overlong "/", an encoded
  // surrogate, a sequence cut at the end.
  bodies.push(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(large('Grüße '))]));
  bodies.push(Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]));
  for (const bad of [[0x80], [0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82]])
    bodies.push(Buffer.concat([Buffer.from(large('Grüße ')), Buffer.from(bad)]));
  for (const body of bodies) assert.equal(decodeBody(body), undiciText(body), `${body.length} bytes`);
});

test('a large body with characters beyond Latin-1 parses to the same JSON as the plain decoder gives', () => {
  const page = {
    results: [
      { id: 1, content: large('Straße – 🧾 ') },
      { id: 2, content: large('ASCII ') },
    ],
  };
  const bytes = Buffer.from(JSON.stringify(page), 'utf8');
  assert.deepEqual(JSON.parse(decodeBody(bytes)), page);
});

test('a body of megabytes, read in chunks that split characters, decodes exactly as undici does', async () => {
  // The emoji's four UTF-8 bytes straddle the end of the decoder's first 32 KiB piece.
  const texts = [
    `${'a'.repeat(32_766)}🧾${large('Straße – 12,50 € „Zitat“ ').repeat(40)}`,
    large('{"content":"plain ASCII text, nothing else"}').repeat(40),
  ];
  for (const text of texts) {
    const bytes = Buffer.from(text, 'utf8');
    assert.ok(bytes.length > 1_100_000);
    assert.equal(decodeBody(bytes), text);
    // Chunks of 65,535 bytes end inside multi-byte sequences; a second read reuses the joining buffer.
    for (let read = 0; read < 2; read++) {
      const chunks = async function* () {
        for (let at = 0; at < bytes.length; at += 65_535) yield bytes.subarray(at, at + 65_535);
      };
      assert.equal(await readBodyText(chunks()), undiciText(bytes));
    }
  }
  assert.equal(await readBodyText((async function* () {})()), '');
});

test('a body whose Content-Length is over the limit is not read, and its stream is destroyed (the connection freed)', async () => {
  let pulled = 0;
  const body = Readable.from(
    (function* () {
      pulled++;
      yield Buffer.alloc(10);
    })(),
  );
  await assert.rejects(readBodyBytes(body, 1024, 500 * 1024 * 1024), (err: unknown) => {
    assert.ok(err instanceof BodyTooLargeError && err.announced && err.seen === 500 * 1024 * 1024);
    return true;
  });
  assert.equal(body.destroyed, true);
  assert.equal(pulled, 0);
});

test('a body that grows past the limit while read stops there, its stream destroyed', async () => {
  let pulled = 0;
  const body = Readable.from(
    (function* () {
      for (let i = 0; i < 100; i++) {
        pulled++;
        yield Buffer.alloc(1000);
      }
    })(),
  );
  await assert.rejects(readBodyBytes(body, 2500), (err: unknown) => {
    assert.ok(err instanceof BodyTooLargeError && !err.announced && err.seen === 3000);
    return true;
  });
  assert.equal(body.destroyed, true);
  assert.ok(pulled < 10, `read ${pulled} chunks`);
});
