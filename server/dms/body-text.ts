import { isAscii, isUtf8, transcode } from 'node:buffer';

// A page of whole documents is megabytes of OCR text, mostly ASCII with a few umlauts: V8's UTF-8 decoder
// leaves its fast path at the first non-ASCII byte and decodes the rest byte by byte, so one page of 1,000
// documents (12.6 MB) took 50–120 ms to decode, more than parsing its JSON. ICU's converter (`transcode` to
// UTF-16) and a copy into the string take 12–22 ms for the same page (docs/performance.md, issue 28).

/** Below this, the plain decoder costs too little to be worth a second buffer. */
const LARGE = 16 * 1024;

/**
 * The body's text exactly as undici's `text()` gives it (UTF-8, a leading BOM dropped, invalid sequences as
 * U+FFFD), decoded faster when the body is large: ASCII as Latin-1 (the same characters), valid UTF-8 through
 * UTF-16; anything else (invalid UTF-8, no ICU) by the plain decoder.
 */
export function decodeBody(bytes: Buffer): string {
  const start = bytes.length > 2 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const body = start > 0 ? bytes.subarray(start) : bytes;
  if (body.length < LARGE) return body.toString('utf8');
  if (isAscii(body)) return body.toString('latin1');
  if (isUtf8(body)) {
    try {
      return transcode(body, 'utf8', 'utf16le').toString('utf16le');
    } catch {
      // A Node built without ICU: the plain decoder below.
    }
  }
  return body.toString('utf8');
}
