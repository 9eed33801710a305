import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashPassword, verifyPassword } from '../../../server/auth/passwords.js';

test('a hash verifies its own password and no other', () => {
  const hash = hashPassword('hunter2-but-longer');
  assert.match(hash, /^scrypt\$32768\$8\$1\$/);
  assert.equal(verifyPassword('hunter2-but-longer', hash), true);
  assert.equal(verifyPassword('hunter2', hash), false);
});

test('two hashes of one password differ (random salt)', () => {
  assert.notEqual(hashPassword('same password'), hashPassword('same password'));
});

test('a malformed hash never verifies', () => {
  assert.equal(verifyPassword('x', 'scrypt$1$2'), false);
  assert.equal(verifyPassword('x', 'bcrypt$abc'), false);
});
