import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import type { DmsNote } from '../../server/dms/types.js';
import type { Trace } from '../../server/engine/model.js';
import { API_TOKEN, call, type TestServer } from '../helpers/test-server.js';
import { waitForEvent } from './support/jobs-kit.js';
import { startNotifyServer } from './support/notify-kit.js';
import { arrivalsSettled } from '../helpers/arrivals.js';

const RULES = `
rules:
  - id: arrival-note
    on: [added]
    when: { title: { contains: Eingang } }
    actions:
      - add_note: "Checked by dms-rules"
      - notify: { to: hook, title: "Checked {{ doc.id }}", message: "Document {{ doc.id }} got a note" }
  - id: flaky-target
    on: [manual]
    actions:
      - set_title: "Checked {{ doc.id }}"
      - notify: { to: flaky, message: "Document {{ doc.id }} was renamed" }
`;

interface Received {
  path: string;
  key: string | undefined;
  answered: number;
}

describe('notify: at-least-once delivery with an Idempotency-Key, and once per change', () => {
  let sim: Simulator;
  let server: TestServer;
  let receiver: http.Server;
  const received: Received[] = [];
  /** Answers /flaky gets before it takes a message: the target is down for two tries. */
  const flakyAnswers = [503, 503];

  const notesOf = async (doc: number): Promise<DmsNote[]> => {
    const res = await fetch(`${sim.url}/api/documents/${doc}/notes/`, {
      headers: { Authorization: `Token ${sim.token}` },
    });
    return (await res.json()) as DmsNote[];
  };
  const tracesOf = async (doc: number, rule: string): Promise<Trace[]> =>
    (await call<{ traces: Trace[] }>(server.url, `/api/traces?document=${doc}&rule_id=${rule}`, { token: API_TOKEN }))
      .body.traces;
  const until = async (what: string, done: () => boolean) => {
    for (let i = 0; i < 2000 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(done(), `still waiting for: ${what}`);
  };

  before(async () => {
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const status = req.url === '/flaky' ? (flakyAnswers.shift() ?? 200) : 200;
        received.push({
          path: req.url ?? '',
          key: req.headers['idempotency-key'] as string | undefined,
          answered: status,
        });
        res.statusCode = status;
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const port = (receiver.address() as AddressInfo).port;
    sim = await startSimulator();
    // Pauses of 10 ms between tries: the test waits for the tries, never for a clock.
    server = await startNotifyServer(
      sim,
      RULES,
      ['  hook:', `    url: http://127.0.0.1:${port}/hook`, '  flaky:', `    url: http://127.0.0.1:${port}/flaky`],
      { notifyRetrySeconds: [0.01, 0.01, 0.01] },
    );
  });
  after(async () => {
    await server?.close();
    await sim?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('a duplicate arrival of a new document adds no second note and sends no second message', async () => {
    const doc = sim.addDocument({ title: 'Eingang Brief', content: 'Sehr geehrte Damen und Herren', tags: [] }).id;
    const deliver = async () => {
      const res = await call<{ event_id: number }>(server.url, '/api/webhook/dms', {
        method: 'POST',
        token: API_TOKEN,
        body: { event: 'document_added', doc_id: String(doc) },
      });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      return res.body.event_id;
    };
    assert.equal((await waitForEvent(server.url, await deliver())).status, 'done');
    // The repeat finds the document exactly as the service's note left it: its own echo, dropped with its event.
    const repeat = await deliver();
    await arrivalsSettled(server.url);
    assert.equal((await call(server.url, `/api/events/${repeat}`, { token: API_TOKEN })).status, 404);

    assert.deepEqual(
      (await notesOf(doc)).map((n) => n.note),
      ['Checked by dms-rules'],
    );
    const hook = received.filter((r) => r.path === '/hook');
    assert.equal(hook.length, 1, JSON.stringify(hook));
    assert.match(String(hook[0].key), new RegExp(`^dms-rules-${doc}-`));
    assert.equal((await tracesOf(doc, 'arrival-note')).length, 1, 'the rules ran once for the one change');
  });

  it('a target that is down is tried again with backoff and the same Idempotency-Key until it takes the message once', async () => {
    const doc = sim.addDocument({ title: 'Kontoauszug', content: 'Saldo', tags: [] }).id;
    const res = await call<{ traces: Trace[] }>(
      server.url,
      `/api/run?document=${doc}&rule_id=flaky-target&dry_run=false`,
      { method: 'POST', token: API_TOKEN },
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const notify = res.body.traces[0].actions.find((a) => a.action === 'notify');
    assert.equal(notify?.status, 'planned', JSON.stringify(notify));
    assert.match(
      notify?.detail ?? '',
      /notify pending: target "flaky" refused \(answered HTTP 503\); retrying at \d{4}-\d\d-\d\dT[\d:.]+Z \(try 2 of 4\)/,
    );

    await until('the third try is taken', () => received.some((r) => r.path === '/flaky' && r.answered === 200));
    await until('the log says it was sent', () =>
      server.logs.some((l) => /notify to "flaky" for document \d+, rule flaky-target sent on try 3/.test(l)),
    );
    const tries = received.filter((r) => r.path === '/flaky');
    assert.deepEqual(
      tries.map((r) => r.answered),
      [503, 503, 200],
    );
    assert.equal(new Set(tries.map((r) => r.key)).size, 1, 'every try carries the same Idempotency-Key');
    assert.ok(
      server.logs.some((l) =>
        /^warn notify pending: target "flaky" refused \(answered HTTP 503\); retrying at .* \(try 3 of 4\)/.test(l),
      ),
      server.logs.join('\n'),
    );
  });
});
