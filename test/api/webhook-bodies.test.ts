import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_BODY_LIMITS } from '../../server/runs/webhook/read-body.js';
import { API_TOKEN, startTestServer, type TestServer } from '../helpers/test-server.js';

// Two bodies real Paperless sends that name no document, each answered with what to change in the workflow.

describe('webhook bodies without a document get an answer that says what to change in Paperless', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const post = async (body: string | FormData, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}/api/webhook/dms`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_TOKEN}`, ...headers },
      body,
    });
    return { status: res.status, body: (await res.json()) as { ok: boolean; error: string } };
  };

  it('"Consumption Started" (an empty doc_id) is 400 naming the trigger to remove', async () => {
    const res = await post(JSON.stringify({ doc_id: '', doc_url: '', title: 'scan.pdf' }), {
      'content-type': 'application/json',
    });
    assert.equal(res.status, 400);
    assert.match(
      res.body.error,
      /empty doc_id: Paperless sends that for the "Consumption Started" trigger.*use "Document Added" and "Document Updated"/,
    );
  });

  it('an odd doc_id (an object with toString, a list) is 400 with a message, never 500', async () => {
    for (const body of [
      '{"doc_id":{"toString":5}}',
      '{"doc_id":[5]}',
      '{"document_id":{"valueOf":1},"event":{"x":1}}',
    ]) {
      const res = await post(body, { 'content-type': 'application/json' });
      assert.equal(res.status, 400, body);
      assert.match(res.body.error, /is (an object|a list), not a document id/, body);
    }
  });

  it('an authenticated multipart body past the total cap is 413, and the rest is not read', async () => {
    const boundary = 'x-boundary';
    const cap = DEFAULT_BODY_LIMITS.maxMultipartBytes;
    const chunk = Buffer.alloc(1024 * 1024, 0x41);
    const { status, sent } = await new Promise<{ status: number; sent: number }>((resolve, reject) => {
      let sent = 0;
      const req = http.request(`${server.url}/api/webhook/dms`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${API_TOKEN}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
        },
      });
      req.on('response', (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, sent });
        req.destroy();
      });
      req.on('error', reject);
      req.write(
        `--${boundary}\r\ncontent-disposition: form-data; name="doc_id"\r\n\r\n5\r\n--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="a.pdf"\r\ncontent-type: application/pdf\r\n\r\n`,
      );
      const more = () => {
        // Twice the cap at most: a service without one would read it all and answer 200 or 400.
        while (sent < 2 * cap && !req.destroyed) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', more);
        }
        if (!req.destroyed) req.end(`\r\n--${boundary}--\r\n`);
      };
      more();
    });
    assert.equal(status, 413);
    assert.ok(sent < 2 * cap, `the service read ${sent} bytes before answering`);
  });

  it('"Include document" with JSON (only the file arrives) is 400 saying to turn it off', async () => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array([37, 80, 68, 70])], { type: 'application/pdf' }), 'scan.pdf');
    const res = await post(form);
    assert.equal(res.status, 400);
    assert.match(
      res.body.error,
      /it was empty\)\. If the workflow's webhook action has "Include document" on, turn it off/,
    );
  });
});
