import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { DmsDocument } from '../../../../server/dms/types.js';
import { createMemoryLogger } from '../../../../server/log.js';
import { openEchoLedger, type EchoLedgerOptions } from '../../../../server/runs/echo/echo-ledger.js';
import { dmsDocument } from '../../../helpers/dms-document.js';
import { tempDir } from '../../../helpers/temp-dir.js';

function doc(id: number, over: Partial<DmsDocument> = {}): DmsDocument {
  return dmsDocument(id, {
    tags: [2, 1],
    created: '2026-01-02',
    modified: '2026-01-02T10:00:00Z',
    added: '2026-01-02T10:00:00Z',
    ...over,
  });
}

/** A dms that holds documents in memory: the ledger reads written documents back by id. */
function memoryDms(docs: Map<number, DmsDocument>): EchoLedgerOptions['dms'] {
  return {
    getDocuments: async (ids: number[]) => ids.flatMap((id) => (docs.has(id) ? [docs.get(id) as DmsDocument] : [])),
  };
}

function ledger(docs = new Map<number, DmsDocument>(), over: Partial<EchoLedgerOptions> = {}) {
  const dir = tempDir();
  return openEchoLedger({
    file: path.join(dir, 'echo-ledger.json'),
    dms: memoryDms(docs),
    logger: createMemoryLogger(),
    loopMaxWrites: 3,
    loopWindowMs: 60_000,
    ...over,
  });
}

describe('the echo ledger (echo recognition by state)', () => {
  it('recognises the state the service wrote however late the echo comes, and any other state as a change', async () => {
    const guard = ledger();
    guard.mark(7);
    guard.settle(7, doc(7, { title: 'Written' }));
    // Same state, a later `modified`, tags in another order: still the service's own state.
    assert.equal(
      guard.isKnownState(doc(7, { title: 'Written', modified: '2026-03-01T00:00:00Z', tags: [1, 2] })),
      true,
    );
    assert.equal(guard.isKnownState(doc(7, { title: 'Written by a person' })), false);
    // A person's note fires no webhook but moves `modified`: catch-up must see it as a change (rules read notes).
    assert.equal(
      guard.isKnownState(doc(7, { title: 'Written', notes: [{ id: 1, note: 'n', created: '', user: null }] })),
      false,
    );
    // So is a permission change (read with full_perms), and a state read without permissions is never taken for one read with them.
    const shared = { view: { users: [2], groups: [] }, change: { users: [], groups: [] } };
    guard.settle(7, doc(7, { title: 'Written', permissions: shared }));
    assert.equal(guard.isKnownState(doc(7, { title: 'Written', permissions: shared })), true);
    assert.equal(
      guard.isKnownState(doc(7, { title: 'Written', permissions: { ...shared, view: { users: [2, 3], groups: [] } } })),
      false,
    );
    assert.equal(guard.isKnownState(doc(7, { title: 'Written' })), false);
    assert.equal(guard.isKnownState(doc(8)), false);
  });

  it('reads a bulk-edited document back, and an echo processed meanwhile waits for that', async () => {
    const docs = new Map([[3, doc(3, { tags: [5] })]]);
    const guard = ledger(docs);
    guard.mark(3);
    let settled = false;
    const waiting = guard.settled(3).then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false, 'a write in flight holds the echo back');
    guard.settle(3);
    await waiting;
    assert.equal(guard.isKnownState(doc(3, { tags: [5] })), true);
  });

  it("a write answered with a document that someone else changed meanwhile is not taken for the service's own state", () => {
    const guard = ledger();
    const before = doc(9, { title: 'Read by the rules' });
    guard.mark(9);
    // Paperless answers a PATCH with the whole stored document: it already holds the person's correspondent.
    guard.settle(9, doc(9, { title: 'Set by the rule', correspondent: 4 }), { before, fields: ['title'] });
    assert.equal(
      guard.isOwnWrite(doc(9, { title: 'Set by the rule', correspondent: 4 })),
      false,
      "the person's webhook runs the rules",
    );
    guard.mark(9);
    guard.settle(9, doc(9, { title: 'Set by the rule' }), { before, fields: ['title'] });
    assert.equal(
      guard.isOwnWrite(doc(9, { title: 'Set by the rule' })),
      true,
      'only the written field changed: the echo is recognised',
    );
  });

  it('a refused write leaves the document unhandled, counts the tries of that state, and shows it until it changes', () => {
    const guard = ledger();
    const stuck = doc(11, { title: 'Stuck' });
    guard.handled(stuck);
    assert.equal(guard.failed(stuck, 'The dms refused the change: 403'), 1);
    assert.equal(guard.isKnownState(stuck), false, 'catch-up runs it again');
    assert.equal(guard.failed(stuck, 'The dms refused the change: 403'), 2);
    assert.equal(guard.failedAttempts(stuck), 2);
    assert.deepEqual(
      guard.failures().map((f) => [f.document, f.attempts, f.message]),
      [[11, 2, 'The dms refused the change: 403']],
    );
    assert.equal(guard.failedAttempts(doc(11, { title: 'Changed by a person' })), 0, 'a new state starts again');
    guard.handled(doc(11, { title: 'Changed by a person' }));
    assert.deepEqual(guard.failures(), [], 'handled: no longer failed');
  });

  it('survives a restart: an old echo after the restart is still recognised', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'echo-ledger.json');
    const options = {
      file,
      dms: memoryDms(new Map()),
      logger: createMemoryLogger(),
      loopMaxWrites: 3,
      loopWindowMs: 60_000,
    };
    const first = openEchoLedger(options);
    first.mark(4);
    first.settle(4, doc(4, { title: 'Mine' }));
    await first.close();
    const second = openEchoLedger(options);
    assert.equal(second.isKnownState(doc(4, { title: 'Mine' })), true);
    assert.equal(second.isKnownState(doc(4, { title: 'Theirs' })), false);
  });

  it('the loop breaker holds a document written too often within the window until a person releases it or the window passes', () => {
    let now = 1_000_000;
    const guard = ledger(new Map(), { now: () => now });
    for (let i = 0; i < 3; i++) {
      assert.equal(guard.holdReason(9), null);
      guard.mark(9);
      guard.settle(9, doc(9, { title: `T${i}` }));
    }
    assert.match(guard.holdReason(9) ?? '', /Loop breaker: the service wrote document 9 3 times/);
    guard.release(9);
    assert.equal(guard.holdReason(9), null);
    for (let i = 0; i < 3; i++) guard.mark(9);
    now += 61_000;
    assert.equal(guard.holdReason(9), null, 'the window has passed');
  });

  it('a state handled without a write is known too, unless a write is in flight', () => {
    const guard = ledger();
    guard.handled(doc(5));
    assert.equal(guard.isKnownState(doc(5)), true);
    guard.mark(6);
    guard.handled(doc(6));
    assert.equal(guard.isKnownState(doc(6)), false);
  });
});
