import { isAscii, isUtf8, transcode } from 'node:buffer';

// A page of whole documents is megabytes of OCR text, mostly ASCII with a few umlauts: V8's UTF-8 decoder
// leaves its fast path at the first non-ASCII byte and decodes the rest byte by byte, so one page of 1,000
// documents (12.6 MB) took 50–120 ms to decode, more than parsing its JSON. ICU's converter (`transcode` to
// UTF-16) and a copy into the string take 12–22 ms for the same page (docs/performance.md).
//
// Memory outside the V8 heap (buffers, external strings) started nearly every full garbage collection during a
// job: V8 starts one whenever it grows 64 MB past its level at the last one, and a page cost 66 MB of it (socket
// chunks, undici's joined copy, one UTF-16 buffer of the page, and Node's copy of any decoded string over ~1 MB,
// which it makes an external string). The body is joined in one reused buffer, and the text is decoded in pieces
// small enough to be ordinary young heap strings (a larger one is mapped fresh each time: page faults), then
// joined on the heap (docs/performance.md, "Service CPU per document, night of 2026-11-26").

/** Below this, the plain decoder costs too little to be worth a second buffer. */
const LARGE = 16 * 1024;

/** At most this many bytes of string per piece: below V8's large-object size (128 KiB) and Node's external strings. */
const PIECE_BYTES = 64 * 1024;

/** The largest body joined in the reused buffer (a page of 1,000 documents is 2–25 MB); larger ones get their own. */
const MAX_REUSED_BYTES = 64 * 1024 * 1024;

let reused: Buffer | null = null;

/** The chunks as one buffer, valid until the next call: only read synchronously. */
function joined(chunks: readonly Buffer[], length: number): Buffer {
  if (chunks.length <= 1) return chunks[0] ?? Buffer.alloc(0);
  if (length > MAX_REUSED_BYTES) return Buffer.concat(chunks, length);
  if (!reused || reused.length < length)
    reused = Buffer.allocUnsafeSlow(Math.min(MAX_REUSED_BYTES, Math.ceil(length * 1.25)));
  let at = 0;
  for (const chunk of chunks) at += chunk.copy(reused, at);
  return reused.subarray(0, length);
}

/** ASCII bytes as a string on the V8 heap, decoded piece by piece. */
function asciiString(bytes: Buffer): string {
  if (bytes.length <= PIECE_BYTES) return bytes.toString('latin1');
  const pieces: string[] = [];
  for (let at = 0; at < bytes.length; at += PIECE_BYTES)
    pieces.push(bytes.toString('latin1', at, Math.min(bytes.length, at + PIECE_BYTES)));
  return pieces.join('');
}

/**
 * Valid UTF-8 as a string on the V8 heap, through UTF-16 piece by piece: each piece ends before a character's
 * first byte, and its UTF-16 (at most twice its size) fits PIECE_BYTES.
 */
function utf8String(bytes: Buffer): string {
  const step = PIECE_BYTES / 2;
  if (bytes.length <= step) return transcode(bytes, 'utf8', 'utf16le').toString('utf16le');
  const pieces: string[] = [];
  for (let at = 0; at < bytes.length;) {
    let end = Math.min(bytes.length, at + step);
    // 0b10xxxxxx continues a character: back up to its first byte.
    while (end < bytes.length && (bytes[end] & 0xc0) === 0x80) end--;
    pieces.push(transcode(bytes.subarray(at, end), 'utf8', 'utf16le').toString('utf16le'));
    at = end;
  }
  return pieces.join('');
}

/**
 * The body's text exactly as undici's `text()` gives it (UTF-8, a leading BOM dropped, invalid sequences as
 * U+FFFD), decoded faster when the body is large: ASCII as Latin-1 (the same characters), valid UTF-8 through
 * UTF-16; anything else (invalid UTF-8, no ICU) by the plain decoder.
 */
export function decodeBody(bytes: Buffer): string {
  const start = bytes.length > 2 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const body = start > 0 ? bytes.subarray(start) : bytes;
  if (body.length < LARGE) return body.toString('utf8');
  if (isAscii(body)) return asciiString(body);
  if (isUtf8(body)) {
    try {
      return utf8String(body);
    } catch {
      // A Node built without ICU: the plain decoder below.
    }
  }
  return body.toString('utf8');
}

/** A body cut off at the byte limit: how much was announced or read when it was. */
export class BodyTooLargeError extends Error {
  constructor(
    readonly limit: number,
    readonly seen: number,
    readonly announced: boolean,
  ) {
    super(`larger than ${limit} bytes`);
  }
}

/** A body read to the end (at most `maxBytes`), still in the chunks it arrived in. */
export interface BodyBytes {
  chunks: Buffer[];
  length: number;
}

/** A response body: its chunks as they arrive; destroying it (when it can be) drops the connection. */
export type BodyStream = AsyncIterable<Buffer> & {
  destroy?(error?: Error): unknown;
  on?(event: 'error', listener: (err: Error) => void): unknown;
};

/** Stops a read: the connection is dropped; the abort it reports is expected, not an error to surface. */
function abandon(body: BodyStream): void {
  body.on?.('error', () => undefined);
  body.destroy?.();
}

/**
 * Reads a body, counting bytes as they arrive: past `maxBytes` (or when Content-Length already says so) it stops,
 * the stream is destroyed (the connection with it) and a BodyTooLargeError says how far it got.
 */
export async function readBodyBytes(
  body: BodyStream,
  maxBytes: number,
  announced: number | null = null,
): Promise<BodyBytes> {
  if (announced !== null && announced > maxBytes) {
    abandon(body);
    throw new BodyTooLargeError(maxBytes, announced, true);
  }
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body) {
    length += chunk.length;
    if (length > maxBytes) {
      abandon(body);
      throw new BodyTooLargeError(maxBytes, length, false);
    }
    chunks.push(chunk);
  }
  return { chunks, length };
}

/** The bytes as one buffer of their own (for handing to a worker). */
export function ownBuffer(bytes: BodyBytes): Buffer {
  return Buffer.concat(bytes.chunks, bytes.length);
}

/** Decodes what `readBodyBytes` read, as `decodeBody` does. */
export function bodyText(bytes: BodyBytes): string {
  // Joined and decoded in one synchronous step: the reused buffer is free again when this returns.
  return decodeBody(joined(bytes.chunks, bytes.length));
}

/** Reads a response body to the end and decodes it as `decodeBody` does. */
export async function readBodyText(body: BodyStream): Promise<string> {
  return bodyText(await readBodyBytes(body, Infinity));
}
