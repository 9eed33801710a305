import { Worker } from 'node:worker_threads';

// Decoding and parsing a body of tens of megabytes is one synchronous step of a second or more: on the main
// thread it holds up every request (health included) and a SIGTERM. A worker of its own does both; the main thread
// only takes the finished value (a structured clone: copying its strings, no parsing).

const WORKER = `
const { parentPort } = require('node:worker_threads');
parentPort.once('message', (bytes) => {
  try {
    // TextDecoder drops a leading BOM and turns invalid UTF-8 into U+FFFD, as undici's text() does.
    const text = new TextDecoder().decode(bytes);
    parentPort.postMessage({ ok: true, value: text === '' ? null : JSON.parse(text) });
  } catch (err) {
    parentPort.postMessage({ ok: false, error: err && err.message ? err.message : String(err) });
  }
});
`;

type Reply = { ok: true; value: unknown } | { ok: false; error: string };

/** Parses a JSON body in a worker thread of its own; rejects with a SyntaxError for invalid JSON. */
export function parseJsonOffThread(bytes: Buffer): Promise<unknown> {
  // Handed over, not copied, when the buffer is the whole of its memory (a large Buffer.concat is).
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  const view = whole ? new Uint8Array(bytes.buffer) : new Uint8Array(bytes);
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { eval: true });
    // A service shutting down does not wait for a parse nobody will read.
    worker.unref();
    worker.once('message', (reply: Reply) => {
      void worker.terminate();
      if (reply.ok) resolve(reply.value);
      else reject(new SyntaxError(reply.error));
    });
    worker.once('error', reject);
    worker.postMessage(view, [view.buffer as ArrayBuffer]);
  });
}
