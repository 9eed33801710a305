import '../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import type http from 'node:http';
import { after, before, describe, it } from 'node:test';
import {
  PAPERLESS_HEADERS,
  paperlessDocument,
  startHostilePaperless,
  startServiceAgainst,
  type HostilePaperless,
} from '../helpers/hostile-paperless.js';
import { API_TOKEN, call, login, type TestServer } from '../helpers/test-server.js';

// A dms (or whatever sits in front of it) that answers too much, the wrong document, or quotes back the token.

const WEBHOOK_TOKEN = 'webhook-secret-token-4711';

/** A dry run of the rule on one document, as the API token, whose dms read fails: the error it answered (502). */
async function failedRunOn(server: TestServer, id: number): Promise<string> {
  const res = await call(server.url, `/api/run?document=${id}&dry_run=true`, { method: 'POST', token: API_TOKEN });
  assert.equal(res.status, 502, JSON.stringify(res.body));
  return String(res.body.error);
}

describe('dms answers that are too large, for another document, or quote the token', () => {
  let fake: HostilePaperless;
  let server: TestServer;
  /** Resolves the held large answer's second half (test 1). */
  let releaseHeld: () => void = () => undefined;
  let heldStarted: () => void = () => undefined;
  const heldReached = new Promise<void>((resolve) => (heldStarted = resolve));

  before(async () => {
    fake = await startHostilePaperless({
      documents: 3,
      echoAuthorization: true,
      answerDocument(id: number, req: http.IncomingMessage, res: http.ServerResponse) {
        if (id === 10) {
          // 3 MB, in two halves: the second only when the test says so (the read is under way meanwhile).
          res.writeHead(200, PAPERLESS_HEADERS);
          const body = Buffer.from(JSON.stringify(paperlessDocument(10, 'x'.repeat(3 * 1024 * 1024))));
          res.write(body.subarray(0, 600 * 1024), () => heldStarted());
          const held = new Promise<void>((resolve) => (releaseHeld = resolve));
          void held.then(() => res.end(body.subarray(600 * 1024)));
          return true;
        }
        if (id === 11) {
          res.writeHead(200, { ...PAPERLESS_HEADERS, 'content-length': String(500 * 1024 * 1024) });
          res.write('{"id": 11, "content": "');
          return true;
        }
        if (id === 12) {
          res.writeHead(200, PAPERLESS_HEADERS);
          res.end(JSON.stringify(paperlessDocument(7)));
          return true;
        }
        if (id === 13) {
          // What a proxy's error page may say: the request's headers, whole, encoded and cut short.
          const auth = req.headers.authorization ?? '';
          const token = auth.replace(/^Token /, '');
          res.writeHead(400, PAPERLESS_HEADERS);
          res.end(
            JSON.stringify({
              detail: `refused ${auth}; as sent: ${encodeURIComponent(auth)}; cut: ${token.slice(0, 10)}…; also ${API_TOKEN} and Bearer ${WEBHOOK_TOKEN}`,
            }),
          );
          return true;
        }
        return false;
      },
    });
    server = await startServiceAgainst(fake, { SVC_DMS_MAX_ANSWER_MB: '1', SVC_WEBHOOK_TOKEN: WEBHOOK_TOKEN });
  });
  after(async () => {
    releaseHeld();
    await server?.close();
    await fake?.close();
  });

  it('cuts off an answer over the byte limit while reading it, names its size and URL, and health answers meanwhile', async () => {
    const run = failedRunOn(server, 10);
    await heldReached;
    // The answer is being read (600 KB in, the rest held back by the dms): the service still answers.
    const health = await call(server.url, '/api/health');
    assert.equal(health.status, 200);
    assert.equal(health.body.status, 'healthy');
    releaseHeld();
    const error = await run;
    assert.match(error, /over 1\.0 MB, larger than the limit of 1\.0 MB/);
    assert.ok(error.includes(`${fake.url}/api/documents/10/?full_perms=true`), error);
    assert.match(error, /SVC_DMS_MAX_ANSWER_MB/);
  });

  it('refuses an answer whose Content-Length is over the limit before reading it', async () => {
    assert.match(await failedRunOn(server, 11), /is 500\.0 MB, larger than the limit of 1\.0 MB/);
    assert.equal((await call(server.url, '/api/health')).body.status, 'healthy');
  });

  it('an answer for document 12 that is document 7 is an error, not document 12', async () => {
    assert.match(await failedRunOn(server, 12), /with document 7, not document 12/);
  });

  it('never stores or answers the tokens a dms error quotes back: traces, run answer, log, health', async () => {
    const answer = await failedRunOn(server, 13);
    assert.match(answer, /refused Token \[redacted\]/);
    const stored = await call(server.url, '/api/traces?limit=50', { token: API_TOKEN });
    const health = await call(server.url, '/api/health');
    for (const [where, text] of [
      ['run answer', answer],
      ['stored traces', JSON.stringify(stored.body)],
      ['health', JSON.stringify(health.body)],
      ['log', server.logs.join('\n')],
    ] as const) {
      for (const secret of [
        fake.token,
        fake.token.slice(0, 10),
        encodeURIComponent(fake.token),
        API_TOKEN,
        WEBHOOK_TOKEN,
      ])
        assert.ok(!text.includes(secret), `${where} holds ${secret}: ${text.slice(0, 2000)}`);
    }
  });

  it('the connection test does not hand back a typed token the dms quotes back', async () => {
    const cookie = await login(server.url);
    const typed = 'typed-token-0123456789abcdef';
    const res = await call(server.url, '/api/ui/settings/test-dms', { body: { url: fake.url, token: typed }, cookie });
    assert.equal(res.status, 200);
    const text = JSON.stringify(res.body);
    assert.match(text, /Invalid token in Token \[redacted\]/);
    assert.ok(!text.includes(typed) && !text.includes('0123456789abcdef'), text);
  });
});
