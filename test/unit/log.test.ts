import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMemoryLogger, escapeLineBreaks } from '../../server/log.js';

test('CR/LF in a message (a dms error, a request path) cannot forge a second log line', () => {
  const forged = 'dms said: 500\r\n2026-01-01T00:00:00.000Z info  admin signed in';
  assert.equal(escapeLineBreaks(forged), 'dms said: 500\\r\\n2026-01-01T00:00:00.000Z info  admin signed in');
  const logger = createMemoryLogger();
  logger.warn(forged);
  assert.equal(logger.lines.length, 1);
  assert.ok(!/[\r\n]/.test(logger.lines[0]));
});
