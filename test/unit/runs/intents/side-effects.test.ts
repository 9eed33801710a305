import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { DmsDocument, DmsNote } from '../../../../server/dms/types.js';
import { dmsDocument } from '../../../helpers/dms-document.js';
import type { PlannedNotification, RuleResult } from '../../../../server/engine/engine.js';
import { createMemoryLogger } from '../../../../server/log.js';
import { openIntentStore } from '../../../../server/runs/intents/intent-store.js';
import { createSideEffects, type SideEffects } from '../../../../server/runs/intents/side-effects.js';
import {
  NotifyError,
  type Notifier,
  type NotifyMessage,
  type SendOptions,
} from '../../../../server/runs/notify/notifier.js';

const NOTIFY: PlannedNotification = {
  path: 'actions/2',
  target: 'phone',
  when: 'on_change',
  title: 'Checked',
  message: 'Document 7 got a note',
};
const NOTIFICATIONS = { r: [NOTIFY] };

/** The engine's result for a rule that tags, adds a note and notifies. */
const RESULT: RuleResult = {
  rule_id: 'r',
  file: 'r.yml',
  status: 'matched',
  conditions: [],
  extracted: {},
  changes: { notes: { from: null, to: ['Checked'] } },
  actions: [
    { path: 'actions/0', action: 'add_tags', status: 'planned' },
    { path: 'actions/1', action: 'add_note', status: 'planned' },
    { path: 'actions/2', action: 'notify', status: 'planned' },
  ],
  error: null,
};

function documentWith(notes: DmsNote[] = []): DmsDocument {
  return dmsDocument(7, {
    title: 'Invoice',
    tags: [1],
    modified: '2026-01-01T00:00:00Z',
    added: '2026-01-01T00:00:00Z',
    notes,
  });
}

/** A notification target that answers from a script: an error, or nothing (received). */
function target(script: Array<NotifyError | null> = []) {
  const received: Array<{ target: string; msg: NotifyMessage; key: string | undefined }> = [];
  const notifier: Notifier = {
    kinds: () => ({ phone: 'http' }),
    attachmentLimit: () => null,
    async send(name, msg, options: SendOptions = {}) {
      received.push({ target: name, msg, key: options.idempotencyKey });
      const answer = script.shift();
      if (answer) throw answer;
    },
  };
  return { notifier, received };
}

/** A dms that keeps the notes it is given. */
function dmsWith(notes: string[] = []) {
  const added: string[] = [];
  return {
    added,
    dms: {
      getDocument: async () => documentWith(notes.map((note, id) => ({ id, note, created: '', user: null }))),
      addNote: async (_id: number, note: string) => {
        added.push(note);
        notes.push(note);
        return [];
      },
      downloadDocument: () => Promise.reject(new Error('no files in this test')),
    },
  };
}

const down = () => new NotifyError('notify target "phone" failed: answered HTTP 503', true, 'answered HTTP 503');

async function until(what: string, done: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !done(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(done(), `still waiting for: ${what}`);
}

function open(file: string, opts: { notifier: Notifier; dms?: ReturnType<typeof dmsWith>['dms']; delays?: number[] }) {
  const logger = createMemoryLogger();
  const store = openIntentStore({ file, logger });
  const effects: SideEffects = createSideEffects({
    store,
    notifier: opts.notifier,
    dms: opts.dms ?? dmsWith().dms,
    logger,
    retryDelaysMs: opts.delays ?? [1, 1],
  });
  return { effects, store, logger };
}

const fileIn = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'side-effects-')), 'side-effects.json');

test('a kill after the note and before the notification: after the restart the notification is sent once, the note not again', async () => {
  const file = fileIn();
  const dms = dmsWith();
  const first = open(file, { notifier: target().notifier, dms: dms.dms });
  const run = first.effects.forRun(documentWith(), 'updated', [RESULT], NOTIFICATIONS);
  assert.deepEqual(await run.writeNotes(['Checked'], ['tags']), { added: 1, skipped: null, noteIds: {} });
  // Killed here: send() never runs, nothing is closed.

  const { notifier, received } = target();
  const second = open(file, { notifier, dms: dms.dms });
  second.effects.resume();
  await until('the pending notification is sent', () => second.store.pending().length === 0);
  assert.equal(received.length, 1);
  assert.match(String(received[0].key), /^dms-rules-7-/);
  assert.deepEqual(dms.added, ['Checked']);

  // The same change arriving again (the re-queued webhook) sends and adds nothing.
  const again = second.effects.forRun(documentWith(), 'updated', [RESULT], NOTIFICATIONS);
  const notes = await again.writeNotes(['Checked'], ['tags']);
  assert.equal(notes.added, 0);
  assert.match(String(notes.skipped), /^note already added for this change \(Idempotency-Key dms-rules-7-[\w-]+\)$/);
  assert.deepEqual(await again.send('r', NOTIFY), {
    status: 'already',
    detail: `already sent for this change (Idempotency-Key ${received[0].key})`,
  });
  assert.equal(received.length, 1);
  await second.effects.stop();
});

test('a note recorded but not known to be added: after the restart it is added only if the document lacks it', async () => {
  for (const [already, expected] of [
    [['Checked'], []],
    [[], ['Checked']],
  ] as const) {
    const file = fileIn();
    const crashed = open(file, {
      notifier: target().notifier,
      dms: { ...dmsWith().dms, addNote: () => new Promise<never>(() => {}) },
    });
    const run = crashed.effects.forRun(documentWith(), 'updated', [RESULT], NOTIFICATIONS);
    void run.writeNotes(['Checked'], ['tags']); // hangs inside addNote: the kill comes here
    await until(
      'the intents are on disk',
      () => openIntentStore({ file, logger: createMemoryLogger() }).pending().length === 2,
    );

    const dms = dmsWith([...already]);
    const restarted = open(file, { notifier: target().notifier, dms: dms.dms });
    restarted.effects.resume();
    await until('nothing left pending', () => restarted.store.pending().length === 0);
    assert.deepEqual(dms.added, expected, `document had ${JSON.stringify(already)}`);
    await restarted.effects.stop();
  }
});

test('a sent notification is never sent again, after a restart neither', async () => {
  const file = fileIn();
  const { notifier, received } = target();
  const first = open(file, { notifier });
  assert.equal(
    (await first.effects.forRun(documentWith(), 'added', [RESULT], NOTIFICATIONS).send('r', NOTIFY)).status,
    'sent',
  );

  const second = open(file, { notifier });
  second.effects.resume();
  // A second arrival of the new document, in a state the service's writes changed: the same change.
  const later = documentWith([{ id: 1, note: 'Checked', created: '', user: null }]);
  const outcome = await second.effects
    .forRun({ ...later, tags: [1, 2] }, 'added', [RESULT], NOTIFICATIONS)
    .send('r', NOTIFY);
  assert.equal(outcome.status, 'already');
  assert.equal(received.length, 1);
});

test('a target that is down is retried with backoff and the same Idempotency-Key until it takes the message', async () => {
  const file = fileIn();
  const { notifier, received } = target([down(), down()]);
  const { effects, store, logger } = open(file, { notifier, delays: [1, 1] });
  const outcome = await effects.forRun(documentWith(), 'updated', [RESULT], NOTIFICATIONS).send('r', NOTIFY);
  assert.equal(outcome.status, 'pending');
  assert.match(
    outcome.status === 'pending' ? outcome.detail : '',
    /^notify pending: target "phone" refused \(answered HTTP 503\); retrying at \d{4}-\d\d-\d\dT[\d:.]+Z \(try 2 of 3\)$/,
  );
  await until(
    'sent on the third try',
    () => store.pending().length === 0 && logger.lines.some((l) => l.includes('sent on try 3')),
  );
  assert.equal(received.length, 3);
  assert.equal(new Set(received.map((r) => r.key)).size, 1);
  assert.ok(
    logger.lines.some((l) =>
      /notify pending: target "phone" refused \(answered HTTP 503\); retrying at .* \(try 3 of 3\)/.test(l),
    ),
    logger.lines.join('\n'),
  );
  assert.ok(
    logger.lines.some((l) => /notify to "phone" for document 7, rule r sent on try 3/.test(l)),
    logger.lines.join('\n'),
  );
  await effects.stop();
});

test('the tries are bounded: after the last one the notification has finally failed, and the log says so', async () => {
  const file = fileIn();
  const { notifier, received } = target([down(), down(), down(), down()]);
  const { effects, store, logger } = open(file, { notifier, delays: [1] });
  await effects.forRun(documentWith(), 'updated', [RESULT], NOTIFICATIONS).send('r', NOTIFY);
  await until('given up', () => store.pending().length === 0 && logger.lines.some((l) => l.includes('finally failed')));
  assert.equal(received.length, 2);
  assert.ok(
    logger.lines.some((l) =>
      /^error notify finally failed \(document 7, rule r\): notify target "phone" failed: answered HTTP 503 \(gave up after 2 tries\)/.test(
        l,
      ),
    ),
    logger.lines.join('\n'),
  );
  await effects.stop();
});

test('a refusal that a retry cannot fix (HTTP 400) fails at once', async () => {
  const { notifier, received } = target([
    new NotifyError('notify target "phone" failed: answered HTTP 400', false, 'answered HTTP 400'),
  ]);
  const { effects, store } = open(fileIn(), { notifier });
  const outcome = await effects.forRun(documentWith(), 'updated', [RESULT], NOTIFICATIONS).send('r', NOTIFY);
  assert.deepEqual(outcome, { status: 'failed', error: 'notify target "phone" failed: answered HTTP 400' });
  assert.equal(received.length, 1);
  assert.deepEqual(store.pending(), []);
});

test('two runs of the same change at once: the second neither adds the note nor sends', async () => {
  const { notifier, received } = target();
  const dms = dmsWith();
  const { effects } = open(fileIn(), { notifier, dms: dms.dms });
  const a = effects.forRun(documentWith(), 'updated', [RESULT], NOTIFICATIONS);
  const b = effects.forRun(documentWith(), 'updated', [RESULT], NOTIFICATIONS);
  await a.writeNotes(['Checked'], ['tags']);
  const second = await b.writeNotes(['Checked'], ['tags']);
  assert.equal(second.added, 0);
  assert.match(String(second.skipped), /^note already added for this change/);
  assert.equal((await a.send('r', NOTIFY)).status, 'sent');
  assert.equal((await b.send('r', NOTIFY)).status, 'already');
  assert.deepEqual(dms.added, ['Checked']);
  assert.equal(received.length, 1);
});

test('a new change of the document (a person deleted the note) is a new key: the note and the message go out again', async () => {
  const { notifier, received } = target();
  const { effects } = open(fileIn(), { notifier });
  await effects.forRun(documentWith(), 'updated', [RESULT], NOTIFICATIONS).send('r', NOTIFY);
  await effects
    .forRun(documentWith([{ id: 9, note: 'other', created: '', user: null }]), 'updated', [RESULT], NOTIFICATIONS)
    .send('r', NOTIFY);
  assert.equal(received.length, 2);
  assert.notEqual(received[0].key, received[1].key);
});

test('a notification recorded before the notes whose rule then wrote nothing is dropped, not sent after a restart', async () => {
  const file = fileIn();
  const first = open(file, { notifier: target().notifier });
  const run = first.effects.forRun(documentWith(), 'updated', [RESULT], NOTIFICATIONS);
  await run.writeNotes([], ['tags']);
  await run.drop('r', NOTIFY);
  const { notifier, received } = target();
  const second = open(file, { notifier });
  second.effects.resume();
  assert.deepEqual(second.store.pending(), []);
  assert.equal(received.length, 0);
});

test('when: once sends for the first change only; a dry run looks and sends nothing; a final refusal does not count', async () => {
  const file = fileIn();
  const refused = new NotifyError('notify target "phone" failed: answered HTTP 400', false, 'answered HTTP 400');
  const { notifier, received } = target([refused]);
  const once: PlannedNotification = { ...NOTIFY, when: 'once' };
  const { effects } = open(file, { notifier });
  const state = (tags: number[]) => ({ ...documentWith(), tags });
  const dry = (tags: number[]) => effects.forRun(state(tags), 'job', [RESULT], NOTIFICATIONS, { dryRun: true });

  assert.equal((await dry([1]).send('r', once)).status, 'would_send');
  assert.equal((await effects.forRun(state([1]), 'job', [RESULT], NOTIFICATIONS).send('r', once)).status, 'failed');
  assert.equal((await dry([1]).send('r', once)).status, 'would_send');
  assert.equal((await effects.forRun(state([1]), 'job', [RESULT], NOTIFICATIONS).send('r', once)).status, 'sent');
  const later = await effects.forRun(state([1, 2]), 'updated', [RESULT], NOTIFICATIONS).send('r', once);
  assert.equal(later.status, 'already');
  assert.match(later.status === 'already' ? later.detail : '', /^already sent once for this document \(when: once\)/);
  assert.equal((await dry([1, 2, 3]).send('r', once)).status, 'already');
  assert.equal(received.length, 2);
  assert.equal(received[0].key, received[1].key);
});

test('when: always sends on each run, and once per event: a retried event does not send twice', async () => {
  const { notifier, received } = target();
  const always: PlannedNotification = { ...NOTIFY, when: 'always' };
  const { effects } = open(fileIn(), { notifier });
  const send = (eventId: number | null) =>
    effects.forRun(documentWith(), 'job', [RESULT], NOTIFICATIONS, { eventId }).send('r', always);
  assert.equal((await send(5)).status, 'sent');
  assert.equal((await send(5)).status, 'already');
  assert.equal((await send(6)).status, 'sent');
  assert.equal((await send(null)).status, 'sent');
  assert.equal((await send(null)).status, 'sent');
  assert.equal(new Set(received.map((r) => r.key)).size, 4);
});

test('a when: always notification a kill left unsent belongs to the re-run under another event: one message, one key', async () => {
  const file = fileIn();
  const always: PlannedNotification = { ...NOTIFY, when: 'always' };
  const RESULTS = { r: [always] };
  const crashed = open(file, { notifier: target().notifier, dms: dmsWith().dms });
  // Recorded before the run's first write; the kill comes before anything is sent.
  await crashed.effects.forRun(documentWith(), 'added', [RESULT], RESULTS, { eventId: 12 }).prepare([], ['tags']);

  const { notifier, received } = target();
  const restarted = open(file, { notifier });
  // Catch-up runs the document again under a new event before the retrier starts, and once more after it.
  const rerun = restarted.effects.forRun(documentWith(), 'added', [RESULT], RESULTS, { eventId: 49 });
  assert.equal((await rerun.send('r', always)).status, 'sent');
  restarted.effects.resume();
  await until('nothing left pending', () => restarted.store.pending().length === 0);
  assert.equal(received.length, 1);

  // A later run that renders another message is a run of its own.
  const other = { ...always, message: 'Document 7 changed again' };
  const next = restarted.effects.forRun(documentWith(), 'updated', [RESULT], { r: [other] }, { eventId: 50 });
  assert.equal((await next.send('r', other)).status, 'sent');
  assert.equal(received.length, 2);
  assert.notEqual(received[0].key, received[1].key);
  await restarted.effects.stop();
});

test('the retrier sends the left notification first: the re-run under another event finds it sent', async () => {
  const file = fileIn();
  const always: PlannedNotification = { ...NOTIFY, when: 'always' };
  const crashed = open(file, { notifier: target().notifier });
  await crashed.effects
    .forRun(documentWith(), 'added', [RESULT], { r: [always] }, { eventId: 12 })
    .prepare([], ['tags']);

  const { notifier, received } = target();
  const restarted = open(file, { notifier });
  restarted.effects.resume();
  await until('the left notification is sent', () => restarted.store.pending().length === 0);
  const rerun = restarted.effects.forRun(documentWith(), 'added', [RESULT], { r: [always] }, { eventId: 49 });
  const outcome = await rerun.send('r', always);
  assert.equal(outcome.status, 'already', JSON.stringify([outcome, received.map((r) => r.key)]));
  assert.equal(received.length, 1);
  await restarted.effects.stop();
});
