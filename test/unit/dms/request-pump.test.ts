import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pumpRequests, type PumpedRequest } from '../../../server/dms/request-pump.js';

/** Requests the test answers by hand, in any order: which were sent, and a way to answer or fail each. */
function manualRequests(total: number, rows: (i: number) => number = () => 100) {
  const sent: number[] = [];
  const settle = new Map<number, { resolve: (v: number) => void; reject: (e: Error) => void }>();
  const begun = new Map<number, () => void>();
  function* requests(): Generator<PumpedRequest<number>> {
    for (let i = 1; i <= total; i++)
      yield {
        rows: rows(i),
        send: (answered) =>
          new Promise<number>((resolve, reject) => {
            sent.push(i);
            settle.set(i, { resolve, reject });
            begun.set(i, answered);
          }),
      };
  }
  return {
    requests: requests(),
    sent,
    answer: (i: number) => settle.get(i)?.resolve(i * 10),
    /** The dms began answering `i`: its status and headers are here, the body still to come. */
    begin: (i: number) => begun.get(i)?.(),
    fail: (i: number) => settle.get(i)?.reject(new Error(`request ${i} failed`)),
  };
}

/** Lets every settled promise run its callbacks (the pump refills from them). */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('pumpRequests: a dms worker never waits for the consumer', () => {
  it('sends the next request as soon as an answer arrives, while the consumer still works on the first', async () => {
    const r = manualRequests(10);
    const answers = pumpRequests(r.requests, 4, 500);
    const first = answers.next();
    await settled();
    assert.deepEqual(r.sent, [1, 2, 3, 4], 'four in flight');
    r.answer(1);
    await settled();
    assert.deepEqual(r.sent, [1, 2, 3, 4, 5], 'answer 1 freed its slot at once');
    assert.equal((await first).value, 10);
    // The consumer works on answer 1 and 2 and 3 arrive: 500 rows are sent and not taken, no more.
    r.answer(2);
    r.answer(3);
    await settled();
    assert.deepEqual(r.sent, [1, 2, 3, 4, 5]);
    assert.equal((await answers.next()).value, 20, 'taking 2 gives back answer 1');
    await settled();
    assert.deepEqual(r.sent, [1, 2, 3, 4, 5, 6]);
  });

  it('holds more of the smaller pages in the same rows: a tail of half pages keeps more requests going', async () => {
    // Two pages of 200 rows, then pages of 100, with 500 rows that may be sent and not taken.
    const r = manualRequests(8, (i) => (i <= 2 ? 200 : 100));
    const answers = pumpRequests(r.requests, 4, 500);
    const first = answers.next();
    await settled();
    assert.deepEqual(r.sent, [1, 2, 3], 'the fourth would make 600 rows');
    r.answer(1);
    assert.equal((await first).value, 10);
    const second = answers.next();
    await settled();
    // Answer 1 given back: 2 (200 rows), 3, 4 and 5 (100 each) in flight, 500 rows not taken.
    assert.deepEqual(r.sent, [1, 2, 3, 4, 5]);
    r.answer(2);
    assert.equal((await second).value, 20);
  });

  it('hands answers over in the order the requests went out, whatever order they arrive in', async () => {
    const r = manualRequests(5);
    const taken: number[] = [];
    const consumer = (async () => {
      for await (const value of pumpRequests(r.requests, 3, 400)) taken.push(value);
    })();
    for (const i of [3, 2, 1, 5, 4]) {
      await settled();
      r.answer(i);
    }
    await consumer;
    assert.deepEqual(taken, [10, 20, 30, 40, 50]);
  });

  it('without read-ahead sends a request only when the consumer asks for the next answer', async () => {
    const r = manualRequests(3);
    const answers = pumpRequests(r.requests, 1, 0);
    const first = answers.next();
    await settled();
    r.answer(1);
    await first;
    await settled();
    assert.deepEqual(r.sent, [1], 'nothing ahead while the consumer works');
    const second = answers.next();
    await settled();
    assert.deepEqual(r.sent, [1, 2]);
    r.answer(2);
    assert.equal((await second).value, 20);
  });

  it('fails where the failed answer is taken, and sends nothing more once the consumer stops', async () => {
    const r = manualRequests(10);
    const answers = pumpRequests(r.requests, 2, 300);
    const first = answers.next();
    await settled();
    r.fail(1);
    await assert.rejects(first, /request 1 failed/);
    const sentWhenFailed = [...r.sent];
    for (const i of sentWhenFailed) r.answer(i);
    await settled();
    assert.deepEqual(r.sent, sentWhenFailed, 'a failed read sends no further requests');

    const s = manualRequests(10);
    const more = pumpRequests(s.requests, 2, 300);
    const one = more.next();
    await settled();
    s.answer(1);
    await one;
    await more.return(undefined);
    const sentWhenStopped = [...s.sent];
    for (const i of sentWhenStopped) s.answer(i);
    await settled();
    assert.deepEqual(s.sent, sentWhenStopped, 'a consumer that stopped early gets no further requests');
  });

  it('frees a slot as soon as the dms began its answer, before the body is read and parsed', async () => {
    const r = manualRequests(10);
    const answers = pumpRequests(r.requests, 2, 1000);
    const first = answers.next();
    await settled();
    assert.deepEqual(r.sent, [1, 2]);
    r.begin(1);
    assert.deepEqual(r.sent, [1, 2, 3], 'the next request went out while answer 1 is still being read');
    r.begin(1);
    r.answer(1);
    await settled();
    assert.deepEqual(r.sent, [1, 2, 3], 'a slot is freed once, however often the answer is announced and settled');
    assert.equal((await first).value, 10);
    await answers.return(undefined);
  });
});
