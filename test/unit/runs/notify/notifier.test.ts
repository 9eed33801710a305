import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { NotifyError, createNotifier } from '../../../../server/runs/notify/notifier.js';

let receiver: http.Server;
let base: string;
let closedPort: number;
const keys: Array<string | undefined> = [];

describe('the notifier over HTTP', () => {
  before(async () => {
    receiver = http.createServer((req, res) => {
      keys.push(req.headers['idempotency-key'] as string | undefined);
      req.resume();
      res.statusCode = Number(req.url?.slice(1)) || 200;
      if (res.statusCode >= 300 && res.statusCode < 400) res.setHeader('location', '/200');
      res.end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    // A port that was free a moment ago: nothing listens there.
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    closedPort = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
  });
  after(() => new Promise((resolve) => receiver.close(resolve)));

  const notifierFor = (url: string) =>
    createNotifier(() => ({ t: { kind: 'http', url, format: 'json', headers: {} } }));

  async function failure(url: string): Promise<NotifyError> {
    try {
      await notifierFor(url).send('t', { title: '', message: 'hi' }, { idempotencyKey: 'dms-rules-1-abc' });
    } catch (err) {
      assert.ok(err instanceof NotifyError, String(err));
      return err;
    }
    assert.fail('the send did not fail');
  }

  test('sends the idempotency key as the Idempotency-Key header', async () => {
    await notifierFor(`${base}/200`).send('t', { title: '', message: 'hi' }, { idempotencyKey: 'dms-rules-1-abc' });
    assert.equal(keys.at(-1), 'dms-rules-1-abc');
  });

  test('a target that is down or busy is worth another try; a refusal is final', async () => {
    for (const [status, retryable] of [
      [503, true],
      [500, true],
      [429, true],
      [408, true],
      [400, false],
      [401, false],
      [404, false],
    ] as const) {
      const err = await failure(`${base}/${status}`);
      assert.equal(err.retryable, retryable, `HTTP ${status}`);
      assert.equal(err.reason, `answered HTTP ${status}`);
      assert.equal(err.message, `notify target "t" failed: answered HTTP ${status}`);
    }
    const down = await failure(`http://127.0.0.1:${closedPort}/`);
    assert.equal(down.retryable, true);
    assert.equal(down.reason, 'no connection: ECONNREFUSED');
  });

  test('an unknown target is a final failure naming it', async () => {
    await assert.rejects(notifierFor(base).send('nope', { title: '', message: 'hi' }), (err: unknown) => {
      assert.ok(err instanceof NotifyError && !err.retryable);
      assert.match(err.message, /there is no notify target "nope"/);
      return true;
    });
  });

  test('a redirect fails at once, final, saying redirects are not followed', async () => {
    for (const status of [301, 302, 307, 308]) {
      const before = keys.length;
      const err = await failure(`${base}/${status}`);
      assert.equal(err.retryable, false, `HTTP ${status}`);
      assert.match(
        err.reason,
        new RegExp(`answered HTTP ${status} \\(a redirect to /200\\): redirects are not followed`),
      );
      assert.equal(keys.length, before + 1, 'the redirect target was not asked');
    }
  });

  test("a failure's message never holds the target's credentials", async () => {
    const secret = 'pa55word-in-the-url';
    const notifier = createNotifier(() => ({
      t: { kind: 'http', url: `http://user:${secret}@127.0.0.1:${closedPort}/`, format: 'json', headers: {} },
    }));
    await assert.rejects(notifier.send('t', { title: '', message: 'hi' }), (err: unknown) => {
      assert.ok(err instanceof NotifyError);
      assert.ok(!err.message.includes(secret) && !err.reason.includes(secret), err.message);
      return true;
    });
  });
});
