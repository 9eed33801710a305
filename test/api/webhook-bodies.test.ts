import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
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
