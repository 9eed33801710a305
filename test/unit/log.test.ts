import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMemoryLogger, escapeLineBreaks, jsonLine, textLine } from '../../server/log.js';

test('CR/LF in a message (a dms error, a request path) cannot forge a second log line', () => {
  const forged = 'dms said: 500\r\n2026-01-01T00:00:00.000Z info  admin signed in';
  assert.equal(escapeLineBreaks(forged), 'dms said: 500\\r\\n2026-01-01T00:00:00.000Z info  admin signed in');
  const logger = createMemoryLogger();
  logger.warn(forged);
  assert.equal(logger.lines.length, 1);
  assert.ok(!/[\r\n]/.test(logger.lines[0]));
});

test('a log line is one JSON object: time, level, message, then the fields (an Error as name, message and stack)', () => {
  const at = new Date('2026-11-25T10:00:00.000Z');
  const line = jsonLine('warn', 'dms slow', { document: 7, err: new TypeError('fetch failed') }, at);
  assert.ok(line.endsWith('\n') && !line.slice(0, -1).includes('\n'));
  const record = JSON.parse(line) as Record<string, unknown>;
  assert.deepEqual(Object.keys(record), ['time', 'level', 'msg', 'document', 'err']);
  assert.equal(record.time, '2026-11-25T10:00:00.000Z');
  assert.deepEqual(record.err && { ...record.err, stack: undefined }, {
    name: 'TypeError',
    message: 'fetch failed',
    stack: undefined,
  });
});

test('the console line stays readable and on one line, fields after the message', () => {
  const at = new Date('2026-11-25T10:00:00.000Z');
  assert.equal(
    textLine('error', 'run failed', { document: 7, stack: 'Error: x\n    at y' }, at),
    '2026-11-25T10:00:00.000Z error run failed document=7 stack=Error: x\\n    at y\n',
  );
  assert.equal(textLine('info', 'started', undefined, at), '2026-11-25T10:00:00.000Z info  started\n');
});
