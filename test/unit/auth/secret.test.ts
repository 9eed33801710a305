import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { loadOrCreateSessionSecret } from '../../../server/auth/secret.js';
import { createMemoryLogger } from '../../../server/log.js';
import { tempDir } from '../../helpers/temp-dir.js';

test('a kept session secret is reused quietly', () => {
  const dir = tempDir();
  const logger = createMemoryLogger();
  const first = loadOrCreateSessionSecret(dir, null, logger);
  assert.equal(loadOrCreateSessionSecret(dir, null, logger), first);
  assert.deepEqual(logger.lines, []);
});

test('a short or garbled session secret is replaced, and the log says so', () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'session-secret'), 'abc\u0000');
  const logger = createMemoryLogger();
  const secret = loadOrCreateSessionSecret(dir, null, logger);
  assert.ok(secret.length >= 32);
  assert.equal(fs.readFileSync(path.join(dir, 'session-secret'), 'utf8'), secret);
  assert.equal(logger.lines.length, 1);
  assert.match(
    logger.lines[0],
    /^error .*session-secret is not printable text \(a torn write\?\); moved it to .*session-secret\.corrupt-.* all signed-in sessions have ended$/,
  );
  assert.equal(
    fs.readdirSync(dir).filter((f) => f.startsWith('session-secret.corrupt-')).length,
    1,
    'the old file is kept aside',
  );
});
