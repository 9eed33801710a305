import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { openIntentStore, type Intent } from '../../../../server/runs/intents/intent-store.js';
import { createMemoryLogger } from '../../../../server/log.js';

const fileIn = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'intents-')), 'side-effects.json');

function notifyIntent(key: string, at = 1000): Intent {
  return {
    key,
    kind: 'notify',
    target: 'phone',
    title: 't',
    message: 'm',
    document: 7,
    rule: 'r',
    path: 'actions/1',
    status: 'pending',
    attempts: 0,
    next_at: null,
    error: null,
    created_at: at,
    updated_at: at,
  };
}

test('an intent is on disk when put resolves: reopening the file after a "crash" finds it pending', async () => {
  const file = fileIn();
  const store = openIntentStore({ file, logger: createMemoryLogger() });
  await store.put(notifyIntent('k1'));
  // No close, no mark done: the process is gone; a new one reads the file.
  const reopened = openIntentStore({ file, logger: createMemoryLogger() });
  assert.deepEqual(
    reopened.pending().map((i) => [i.key, i.kind, i.status]),
    [['k1', 'notify', 'pending']],
  );
});

test('an intent marked done stays done after a restart and is not pending', async () => {
  const file = fileIn();
  const store = openIntentStore({ file, logger: createMemoryLogger() });
  await store.put(notifyIntent('k1'), notifyIntent('k2'));
  await store.update('k1', { status: 'done', attempts: 1 });
  const reopened = openIntentStore({ file, logger: createMemoryLogger() });
  assert.equal(reopened.get('k1')?.status, 'done');
  assert.deepEqual(
    reopened.pending().map((i) => i.key),
    ['k2'],
  );
});

test('the file is private to the service (mode 0600)', async () => {
  const file = fileIn();
  const store = openIntentStore({ file, logger: createMemoryLogger() });
  await store.put(notifyIntent('k1'));
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
});

test('beyond its capacity the oldest finished intents are forgotten; pending ones never are', async () => {
  const file = fileIn();
  let clock = 0;
  const store = openIntentStore({ file, logger: createMemoryLogger(), capacity: 3, now: () => ++clock });
  await store.put(notifyIntent('waiting'));
  for (let i = 0; i < 6; i++) {
    await store.put(notifyIntent(`sent-${i}`));
    await store.update(`sent-${i}`, { status: 'done' });
  }
  const reopened = openIntentStore({ file, logger: createMemoryLogger() });
  assert.equal(reopened.get('waiting')?.status, 'pending');
  assert.deepEqual(
    ['sent-0', 'sent-1', 'sent-2', 'sent-3', 'sent-4', 'sent-5'].map((k) => reopened.get(k)?.status ?? 'forgotten'),
    ['forgotten', 'forgotten', 'forgotten', 'done', 'done', 'done'],
  );
});

test('a removed intent is gone after a restart', async () => {
  const file = fileIn();
  const store = openIntentStore({ file, logger: createMemoryLogger() });
  await store.put(notifyIntent('k1'));
  await store.remove('k1');
  assert.equal(openIntentStore({ file, logger: createMemoryLogger() }).get('k1'), undefined);
});

test('an unreadable file is moved aside, never overwritten, and the log says so', async () => {
  const file = fileIn();
  fs.writeFileSync(file, '{"version":1,"intents":[{"key":');
  const logger = createMemoryLogger();
  const store = openIntentStore({ file, logger });
  assert.deepEqual(store.pending(), []);
  const aside = fs.readdirSync(path.dirname(file)).filter((f) => f.includes('.corrupt-'));
  assert.equal(aside.length, 1);
  assert.equal(fs.readFileSync(path.join(path.dirname(file), aside[0]), 'utf8'), '{"version":1,"intents":[{"key":');
  assert.ok(
    logger.lines.some((l) => /intent store .* could not be read/.test(l)),
    logger.lines.join('\n'),
  );
});

test('a write that fails makes put reject, so nothing is sent without its intent on disk', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'intents-'));
  const file = path.join(dir, 'side-effects.json');
  fs.mkdirSync(file); // a directory where the file should be: rename fails
  const store = openIntentStore({ file, logger: createMemoryLogger() });
  await assert.rejects(store.put(notifyIntent('k1')), /the intent store .* could not be written/);
});

test('a finished intent keeps its key, not the text it sent', async () => {
  const file = fileIn();
  const store = openIntentStore({ file, logger: createMemoryLogger() });
  await store.put(notifyIntent('k1'));
  assert.match(fs.readFileSync(file, 'utf8'), /"message":"m"/);
  await store.update('k1', { status: 'done' });
  const kept = openIntentStore({ file, logger: createMemoryLogger() }).get('k1');
  assert.equal(kept?.status, 'done');
  assert.equal(kept?.kind === 'notify' ? kept.message : null, '');
});

test('a when: once record is never forgotten to make room, and keeps no body or headers once sent', async () => {
  const file = fileIn();
  let clock = 0;
  const store = openIntentStore({ file, logger: createMemoryLogger(), capacity: 2, now: () => ++clock });
  const sending: Intent = { ...notifyIntent('once'), once: true };
  if (sending.kind === 'notify') Object.assign(sending, { body: '{"secret": 1}', headers: { 'X-A': 'b' } });
  await store.put(sending);
  assert.match(fs.readFileSync(file, 'utf8'), /"body":"\{\\"secret\\": 1\}"/);
  await store.update('once', { status: 'done' });
  for (let i = 0; i < 5; i++) {
    await store.put(notifyIntent(`sent-${i}`));
    await store.update(`sent-${i}`, { status: 'done' });
  }
  const reopened = openIntentStore({ file, logger: createMemoryLogger() });
  const kept = reopened.get('once');
  assert.equal(kept?.status, 'done');
  assert.equal(kept?.once, true);
  assert.equal(kept?.kind === 'notify' ? (kept.body ?? kept.headers ?? null) : 'note', null);
  assert.deepEqual(
    ['sent-2', 'sent-3', 'sent-4'].map((k) => reopened.get(k)?.status ?? 'forgotten'),
    ['forgotten', 'done', 'done'],
  );
});
