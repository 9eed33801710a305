import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashPassword, verifyPassword, verifyPasswordSync } from '../../../server/auth/passwords.js';

test('a hash verifies its own password and no other', async () => {
  const hash = hashPassword('hunter2-but-longer');
  assert.match(hash, /^scrypt\$32768\$8\$1\$/);
  assert.equal(await verifyPassword('hunter2-but-longer', hash), true);
  assert.equal(await verifyPassword('hunter2', hash), false);
  assert.equal(verifyPasswordSync('hunter2-but-longer', hash), true);
  assert.equal(verifyPasswordSync('hunter2', hash), false);
});

test('sign-in hashes off the main thread: the event loop turns while the hash is computed', async () => {
  const hash = hashPassword('some password');
  let loopTurned = false;
  const checking = verifyPassword('a wrong guess', hash);
  setImmediate(() => (loopTurned = true));
  assert.equal(await checking, false);
  assert.equal(loopTurned, true, 'a hash on the main thread would have finished before the loop could turn');
});

test('two hashes of one password differ (random salt)', () => {
  assert.notEqual(hashPassword('same password'), hashPassword('same password'));
});

test('a malformed hash never verifies', async () => {
  assert.equal(await verifyPassword('x', 'scrypt$1$2'), false);
  assert.equal(await verifyPassword('x', 'bcrypt$abc'), false);
  assert.equal(verifyPasswordSync('x', 'bcrypt$abc'), false);
});
