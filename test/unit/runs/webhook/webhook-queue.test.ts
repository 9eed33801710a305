import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createWebhookQueue, type QueuedDelivery } from '../../../../server/runs/webhook/webhook-queue.js';

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

test('deliveries for a document already waiting collapse into one run that keeps every trigger it merged', async () => {
  const runs: QueuedDelivery[] = [];
  const hold = gate();
  let nextId = 1;
  const queue = createWebhookQueue({ concurrency: 1, retryAfterSeconds: 5 }, async (d) => {
    await hold.opened;
    runs.push(d);
  });
  const first = queue.enqueue(1, 'updated', () => nextId++);
  await new Promise((r) => setImmediate(r)); // doc 1 starts and blocks
  const second = queue.enqueue(2, 'added', () => nextId++);
  const third = queue.enqueue(2, 'updated', () => nextId++);
  const fourth = queue.enqueue(2, 'added', () => nextId++);
  assert.equal(first.status, 'queued');
  assert.equal(second.status, 'queued');
  assert.equal(third.status, 'collapsed');
  assert.equal(third.delivery.event_id, second.delivery.event_id);
  assert.equal(fourth.status, 'collapsed');
  assert.equal(nextId, 3, 'collapsed deliveries create no event');
  hold.open();
  await queue.idle();
  assert.deepEqual(
    runs.map((r) => [r.document, r.triggers]),
    [
      [1, ['updated']],
      [2, ['added', 'updated']],
    ],
  );
});

test('a document whose run has started may be queued once more, and runs after the first finishes', async () => {
  const order: string[] = [];
  const hold = gate();
  let id = 1;
  const queue = createWebhookQueue({ concurrency: 4, retryAfterSeconds: 5 }, async (d) => {
    order.push(`start ${d.event_id}`);
    if (d.event_id === 1) await hold.opened;
    order.push(`end ${d.event_id}`);
  });
  queue.enqueue(5, 'updated', () => id++);
  await new Promise((r) => setImmediate(r));
  assert.equal(queue.enqueue(5, 'updated', () => id++).status, 'queued');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(order, ['start 1'], 'the follow-up waits while the same document runs');
  hold.open();
  await queue.idle();
  assert.deepEqual(order, ['start 1', 'end 1', 'start 2', 'end 2']);
});

test('a queue never refuses for want of room: a thousand documents wait at once; concurrency is bounded', async () => {
  const hold = gate();
  let active = 0;
  let peak = 0;
  let ran = 0;
  let id = 1;
  const queue = createWebhookQueue({ concurrency: 2, retryAfterSeconds: 7 }, async () => {
    active++;
    peak = Math.max(peak, active);
    await hold.opened;
    active--;
    ran++;
  });
  for (let doc = 1; doc <= 2; doc++) queue.enqueue(doc, 'updated', () => id++);
  await new Promise((r) => setImmediate(r)); // two running, none waiting
  for (let doc = 3; doc <= 1002; doc++) assert.equal(queue.enqueue(doc, 'updated', () => id++).status, 'queued');
  assert.equal(queue.waiting, 1000);
  // A duplicate of a waiting document joins it.
  assert.equal(queue.enqueue(4, 'added', () => id++).status, 'collapsed');
  assert.equal(queue.waiting, 1000);
  hold.open();
  await queue.idle();
  assert.equal(peak, 2);
  assert.equal(ran, 1002);
});

test('stop returns the deliveries that never started and waits for running ones', async () => {
  const hold = gate();
  let finished = 0;
  let id = 1;
  const queue = createWebhookQueue({ concurrency: 1, retryAfterSeconds: 5 }, async () => {
    await hold.opened;
    finished++;
  });
  queue.enqueue(1, 'updated', () => id++);
  await new Promise((r) => setImmediate(r));
  queue.enqueue(2, 'added', () => id++);
  const stopping = queue.stop();
  hold.open();
  const left = await stopping;
  assert.deepEqual(
    left.map((d) => d.document),
    [2],
  );
  assert.equal(finished, 1);
  assert.throws(
    () => queue.enqueue(3, 'updated', () => id++),
    (err: Error & { status?: number }) => err.status === 503,
  );
});

test('stop gives up on a delivery still running after the grace time and returns it too', async () => {
  const never = gate();
  let id = 1;
  const queue = createWebhookQueue({ concurrency: 1, retryAfterSeconds: 5, stopGraceMs: 50 }, async () => {
    await never.opened; // a document that never arrives
  });
  queue.enqueue(7, 'added', () => id++);
  await new Promise((r) => setImmediate(r));
  const left = await queue.stop();
  assert.deepEqual(
    left.map((d) => d.document),
    [7],
    'the stuck delivery is handed back to be marked interrupted',
  );
  never.open();
});

test('a run waiting for its document goes back to the queue with a due time and frees its slot; restored deliveries run too', async () => {
  const order: string[] = [];
  let tries = 0;
  const queue = createWebhookQueue({ concurrency: 1, retryAfterSeconds: 5 }, async (d) => {
    if (d.document === 1 && tries++ < 2) {
      order.push('1 not there yet');
      return { retryInMs: 30 };
    }
    order.push(`${d.document} ran`);
  });
  queue.enqueue(1, 'added', () => 1);
  await new Promise((r) => setImmediate(r));
  queue.restore({ document: 2, triggers: ['updated'], event_id: 2 });
  queue.restore({ document: 3, triggers: ['updated'], event_id: 3 });
  await queue.idle();
  assert.deepEqual(order, ['1 not there yet', '2 ran', '3 ran', '1 not there yet', '1 ran']);
});

test('a paused queue accepts deliveries and starts none of them until it resumes', async () => {
  const ran: number[] = [];
  let id = 1;
  const queue = createWebhookQueue({ concurrency: 2, retryAfterSeconds: 5 }, async (d) => {
    ran.push(d.document);
  });
  queue.pause();
  assert.equal(queue.enqueue(3, 'updated', () => id++).status, 'queued');
  assert.equal(queue.enqueue(4, 'added', () => id++).status, 'queued');
  for (let turn = 0; turn < 5; turn++) await new Promise((r) => setImmediate(r));
  assert.deepEqual(ran, [], 'nothing started while paused');
  assert.equal(queue.waiting, 2);
  queue.resume();
  await queue.idle();
  assert.deepEqual(ran.sort(), [3, 4]);
});
