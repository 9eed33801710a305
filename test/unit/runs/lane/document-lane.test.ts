import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createDocumentLane } from '../../../../server/runs/lane/document-lane.js';

/** A hold the test ends by hand, so the order of events is decided by the test, never by timing. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

test('two holders of one document never overlap; they run in arrival order', async () => {
  const lane = createDocumentLane();
  const log: string[] = [];
  const first = gate();
  const a = lane.exclusive(7, async () => {
    log.push('a starts');
    await first.opened;
    log.push('a ends');
  });
  const b = lane.exclusive(7, async () => {
    log.push('b starts');
  });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(log, ['a starts'], 'b waits while a holds the document');
  first.open();
  await Promise.all([a, b]);
  assert.deepEqual(log, ['a starts', 'a ends', 'b starts']);
});

test('other documents are not held up', async () => {
  const lane = createDocumentLane();
  const held = gate();
  const slow = lane.exclusive(1, () => held.opened);
  let otherRan = false;
  await lane.exclusive(2, async () => {
    otherRan = true;
  });
  assert.equal(otherRan, true);
  assert.equal(lane.busy, 1);
  held.open();
  await slow;
  assert.equal(lane.busy, 0);
});

test('a failing holder releases the lane and its error reaches its caller', async () => {
  const lane = createDocumentLane();
  await assert.rejects(
    lane.exclusive(3, () => Promise.reject(new Error('dms refused'))),
    /dms refused/,
  );
  assert.equal(await lane.exclusive(3, () => Promise.resolve('next')), 'next');
});

test('the generation counts finished holds, so a copy read before waiting is known to be stale', async () => {
  const lane = createDocumentLane();
  const readAt = lane.generation(9);
  await lane.exclusive(9, () => Promise.resolve());
  assert.equal(lane.generation(9), readAt + 1);
  assert.equal(lane.generation(10), 0);
});

test('holding several documents at once takes them in id order and cannot deadlock with single holders', async () => {
  const lane = createDocumentLane();
  const log: string[] = [];
  const single = gate();
  const five = lane.exclusive(5, async () => {
    await single.opened;
    log.push('single 5 done');
  });
  const many = lane.exclusiveAll([5, 1, 3], async () => {
    log.push('bulk holds 1, 3, 5');
  });
  let oneFree = false;
  const one = lane.exclusive(1, async () => {
    oneFree = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(oneFree, false, 'the bulk holder took 1 while it waits for 5');
  single.open();
  await Promise.all([five, many, one]);
  assert.deepEqual(log, ['single 5 done', 'bulk holds 1, 3, 5']);
  assert.equal(oneFree, true);
});

test('a holder asking for its own document again fails at once instead of waiting for itself', async () => {
  const lane = createDocumentLane();
  let nested: unknown;
  const outcome = await lane.exclusive(5, async () => {
    nested = await lane.exclusive(5, () => Promise.resolve('ran')).catch((err: unknown) => err);
    return 'outer finished';
  });
  assert.equal(outcome, 'outer finished', 'the outer hold ends normally');
  assert.ok(nested instanceof Error, 'the nested hold is refused');
  assert.match(nested.message, /holder of document 5 asked for it again; holds are not re-entrant/);
  assert.equal(lane.busy, 0);
});

test('a bulk holder asking again for one of its documents fails too; other documents may be held inside', async () => {
  const lane = createDocumentLane();
  await lane.exclusiveAll([3, 9], async () => {
    await assert.rejects(
      lane.exclusiveAll([1, 9], () => Promise.resolve()),
      /document 9 asked for it again/,
    );
    assert.equal(await lane.exclusive(4, () => Promise.resolve('other')), 'other');
  });
  assert.equal(lane.busy, 0);
});

test('work a hold set off that asks for the document after the hold ended gets the lane, beside other holds too', async () => {
  for (const otherHeld of [false, true]) {
    const lane = createDocumentLane();
    let later!: Promise<string>;
    const ended = gate();
    await lane.exclusive(6, async () => {
      // Started inside the hold (it inherits the hold's async context), asks only once the hold is over.
      later = ended.opened.then(() => lane.exclusive(6, () => Promise.resolve('later ran')));
    });
    // A hold of another document in flight turns the async store on again; `later` still carries the ended hold.
    const other = gate();
    const holding = otherHeld ? lane.exclusive(7, () => other.opened) : Promise.resolve();
    ended.open();
    assert.equal(await later, 'later ran', otherHeld ? 'beside a hold of 7' : 'alone');
    other.open();
    await holding;
  }
});

test('the check holds across quiet spells: after every hold ended, asking again inside a new hold still fails', async () => {
  const lane = createDocumentLane();
  await lane.exclusive(2, () => Promise.resolve());
  assert.equal(lane.busy, 0);
  await lane.exclusive(2, async () => {
    await assert.rejects(
      lane.exclusive(2, () => Promise.resolve()),
      /document 2 asked for it again/,
    );
  });
});
