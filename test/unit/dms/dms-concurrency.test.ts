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

describe('the read costs bound reads by what the dms was last seen to serve at once', () => {
  it('keeps no figure until one is learnt, then the latest learnt (none when the latest could not count)', () => {
    const costs = createReadCosts();
    assert.equal(costs.concurrency(), null);
    costs.useConcurrency(4);
    assert.equal(costs.concurrency(), 4);
    costs.useConcurrency(1);
    assert.equal(costs.concurrency(), 1);
    costs.useConcurrency(null);
    assert.equal(costs.concurrency(), null);
  });
});

describe('concurrencyLearner: rounds of two, the more of them kept', () => {
  const dmsTelling = (rounds: ProbeRound[]) => {
    const asked: number[] = [];
    const used: Array<number | null> = [];
    return {
      asked,
      used,
      probeConcurrency: () => {
        asked.push(asked.length);
        return Promise.resolve(rounds[asked.length - 1] ?? null);
      },
      useConcurrency: (served: number | null) => void used.push(served),
    };
  };

  it('keeps the more of two rounds, and asks no more once a round told something', async () => {
    const dms = dmsTelling([3, 4]);
    const learner = concurrencyLearner(dms);
    assert.equal(learner.servesAtOnce(), null);
    await learner.learn();
    assert.equal(learner.servesAtOnce(), 4);
    assert.deepEqual(dms.used, [4], 'the client reads with the figure learnt');
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
      useConcurrency: () => undefined,
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

  it('learns afresh after the dms came back: a restart with fewer web workers replaces the figure', async () => {
    const dms = dmsTelling([4, 4, 1, 1]);
    const learner = concurrencyLearner(dms);
    await learner.learn();
    await learner.relearn();
    assert.equal(learner.servesAtOnce(), 1);
    assert.deepEqual(dms.used, [4, 1]);
    assert.equal(dms.asked.length, 4);
  });

  it('learns afresh even after answers too quick to tell, and keeps the old figure while rounds tell nothing', async () => {
    const dms = dmsTelling([2, 2, null, null, 'quick', 3]);
    const learner = concurrencyLearner(dms);
    await learner.learn();
    await learner.relearn();
    assert.equal(learner.servesAtOnce(), 2, 'two disturbed rounds: reads keep the figure they had');
    assert.deepEqual(dms.used, [2]);
    await learner.learn();
    assert.equal(learner.servesAtOnce(), 3, 'still unsettled: the next learn asks again');
    assert.equal(dms.asked.length, 6);
  });

  it('a restarted dms that answers too quickly to tell leaves no figure: reads go back to their default', async () => {
    const dms = dmsTelling([1, 1, 'quick', 'quick']);
    const learner = concurrencyLearner(dms);
    await learner.learn();
    await learner.relearn();
    assert.equal(learner.servesAtOnce(), null);
    assert.deepEqual(dms.used, [1, null]);
  });

  it('a relearn while rounds are under way waits for them, then asks again', async () => {
    const dms = dmsTelling([4, 4, 2, 2]);
    const learner = concurrencyLearner(dms);
    await Promise.all([learner.learn(), learner.relearn()]);
    assert.equal(dms.asked.length, 4);
    assert.equal(learner.servesAtOnce(), 2);
  });
});
