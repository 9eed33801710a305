import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CONCURRENCY_PROBES,
  concurrencyFromLatencies,
  concurrencyLearner,
  probeConcurrency,
} from '../../../server/dms/dms-concurrency.js';
import type { DmsRequest, DmsResponse } from '../../../server/dms/http-transport.js';
import type { ProbeRound } from '../../../server/dms/types.js';
import { createReadCosts } from '../../../server/dms/read-costs.js';

describe('concurrencyFromLatencies: identical requests sent together answer in waves', () => {
  it('tells one, two, three and four workers apart by the answers in the first wave', () => {
    assert.equal(concurrencyFromLatencies([62, 124, 186, 248]), 1);
    assert.equal(concurrencyFromLatencies([125, 62, 126, 63]), 2);
    assert.equal(concurrencyFromLatencies([60, 61, 62, 121]), 3);
    assert.equal(concurrencyFromLatencies([62, 62, 63, 64]), 4);
  });

  it('cannot tell from answers quicker than the event loop is precise, nor from one answer', () => {
    assert.equal(concurrencyFromLatencies([2, 4, 6, 8]), null);
    assert.equal(concurrencyFromLatencies([62]), null);
    assert.equal(concurrencyFromLatencies([]), null);
  });
});

/** A transport whose answers the test gives, each at a moment of a clock it sets. */
function scriptedTransport() {
  let clock = 0;
  const sent: Array<{ request: DmsRequest; answer: (status?: number) => void }> = [];
  let idle: () => void = () => undefined;
  let busy = false;
  return {
    now: () => clock,
    sent,
    attempts: () => sent.length,
    /** Another request is under way until `settle()`. */
    busy() {
      busy = true;
    },
    settle() {
      busy = false;
      idle();
    },
    whenIdle: () => (busy ? new Promise<void>((resolve) => (idle = resolve)) : Promise.resolve()),
    /** The answer to the `index`th request begins at `ms` (a 500 fails it before it began). */
    answer(index: number, ms: number, status = 200) {
      clock = ms;
      sent[index].answer(status);
    },
    send(request: DmsRequest): Promise<DmsResponse> {
      return new Promise((resolve, reject) =>
        sent.push({
          request,
          answer: (status = 200) => {
            if (status !== 200) return reject(new Error(`dms answered ${status}`));
            request.onAnswer?.();
            resolve({ status, headers: {}, json: { count: 0, results: [] } });
          },
        }),
      );
    },
  };
}

describe('probeConcurrency', () => {
  it('waits until nothing else is under way, sends the probes together and reads the waves of their answers', async () => {
    const transport = scriptedTransport();
    transport.busy();
    const probe = probeConcurrency(transport, transport.now);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(transport.sent.length, 0, 'nothing goes out while another request is under way');
    transport.settle();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(transport.sent.length, CONCURRENCY_PROBES, 'every probe went out before any answer');
    for (const { request } of transport.sent) {
      assert.equal(request.method, 'GET');
      assert.equal(request.path, '/api/documents/');
      assert.equal(request.query?.get('id__in'), '0', 'a page that matches nothing: no ids on 2.x, no rows');
    }
    [80, 160, 240, 320].forEach((ms, i) => transport.answer(i, ms));
    assert.equal(await probe, 1);
  });

  it('says nothing when another request went out meanwhile: it took a worker, or held the probes behind it', async () => {
    const transport = scriptedTransport();
    const probe = probeConcurrency(transport, transport.now);
    await new Promise((resolve) => setImmediate(resolve));
    void transport.send({ method: 'GET', path: '/api/tags/', idempotent: true }).catch(() => undefined);
    [80, 81, 82, 83].forEach((ms, i) => transport.answer(i, ms));
    assert.equal(await probe, null);
  });

  it("says 'quick' when every probe was answered too quickly to tell the waves apart", async () => {
    const transport = scriptedTransport();
    const probe = probeConcurrency(transport, transport.now);
    await new Promise((resolve) => setImmediate(resolve));
    [2, 4, 6, 8].forEach((ms, i) => transport.answer(i, ms));
    assert.equal(await probe, 'quick');
  });

  it('says nothing when a probe failed: its wave cannot be known', async () => {
    const transport = scriptedTransport();
    const probe = probeConcurrency(transport, transport.now);
    await new Promise((resolve) => setImmediate(resolve));
    transport.answer(0, 80);
    transport.answer(1, 81);
    transport.answer(2, 82, 500);
    transport.answer(3, 83);
    assert.equal(await probe, null);
  });
});

describe('the read costs keep the most any probe saw the dms serve at once', () => {
  it('a later probe that counted fewer (an answer hidden behind someone else’s request) does not lower it', () => {
    const costs = createReadCosts();
    assert.equal(costs.concurrency(), null);
    costs.recordConcurrency(4);
    costs.recordConcurrency(3);
    assert.equal(costs.concurrency(), 4);
    costs.recordConcurrency(1);
    assert.equal(costs.concurrency(), 4);
  });
});

describe('concurrencyLearner: rounds of two, the most seen kept', () => {
  const dmsTelling = (rounds: ProbeRound[]) => {
    const asked: number[] = [];
    return {
      asked,
      probeConcurrency: () => {
        asked.push(asked.length);
        return Promise.resolve(rounds[asked.length - 1] ?? null);
      },
    };
  };

  it('keeps the more of two rounds, and asks no more once a round told something', async () => {
    const dms = dmsTelling([3, 4]);
    const learner = concurrencyLearner(dms);
    assert.equal(learner.servesAtOnce(), null);
    await learner.learn();
    assert.equal(learner.servesAtOnce(), 4);
    await learner.learn();
    assert.equal(dms.asked.length, 2, 'settled: no more probes');
  });

  it('asks again when both rounds came to nothing (the dms down, or other requests under way)', async () => {
    const dms = dmsTelling([null, null, 1, null]);
    const learner = concurrencyLearner(dms);
    await learner.learn();
    assert.equal(learner.servesAtOnce(), null);
    await learner.learn();
    assert.equal(learner.servesAtOnce(), 1);
    assert.equal(dms.asked.length, 4);
  });

  it('a round answered too quickly to tell settles it without a figure (reads keep their default)', async () => {
    const dms = dmsTelling(['quick', 'quick']);
    const learner = concurrencyLearner(dms);
    await learner.learn();
    await learner.learn();
    assert.equal(learner.servesAtOnce(), null);
    assert.equal(dms.asked.length, 2);
  });

  it('says nothing between the two rounds: what is shown does not change a moment later', async () => {
    let second: (round: ProbeRound) => void = () => undefined;
    let asked = 0;
    const learner = concurrencyLearner({
      probeConcurrency: () =>
        ++asked === 1 ? Promise.resolve(1) : new Promise<ProbeRound>((resolve) => (second = resolve)),
    });
    const learning = learner.learn();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(asked, 2, 'the second round is under way');
    assert.equal(learner.servesAtOnce(), null);
    second(2);
    await learning;
    assert.equal(learner.servesAtOnce(), 2);
  });

  it('callers meanwhile share the rounds under way', async () => {
    const dms = dmsTelling([2, 2]);
    const learner = concurrencyLearner(dms);
    await Promise.all([learner.learn(), learner.learn(), learner.learn()]);
    assert.equal(dms.asked.length, 2);
  });
});
