import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createFileLogger, readServiceLog, serviceLogFile } from '../../server/log-file.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('the service log file (desktop app)', () => {
  it('appends one JSON object per line in the data dir: time, level, message and fields; line breaks stay inside', () => {
    const dataDir = tempDir();
    const logger = createFileLogger(serviceLogFile(dataDir));
    logger.info('started');
    logger.error('dms said:\nforged line', { document: 12, msg: 'not the message' });
    const lines = fs
      .readFileSync(path.join(dataDir, 'logs', 'service.log'), 'utf8')
      .trimEnd()
      .split('\n');
    assert.equal(lines.length, 2);
    const [first, second] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.match(String(first.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual({ ...first, time: undefined }, { time: undefined, level: 'info', msg: 'started' });
    assert.equal(second.level, 'error');
    assert.equal(second.msg, 'dms said:\nforged line');
    assert.equal(second.document, 12);
    assert.equal(second.field_msg, 'not the message', 'a field cannot replace the message');
    assert.match(readServiceLog(dataDir), /started/);
  });

  it('rotates by size and keeps the set number of old files', () => {
    const dataDir = tempDir();
    const file = serviceLogFile(dataDir);
    const logger = createFileLogger(file, { maxBytes: 200, keep: 2 });
    for (let i = 0; i < 20; i++) logger.info(`message number ${i} ${'x'.repeat(40)}`);
    assert.ok(fs.statSync(file).size <= 200);
    assert.ok(fs.existsSync(`${file}.1`) && fs.existsSync(`${file}.2`));
    assert.equal(fs.existsSync(`${file}.3`), false);
    assert.match(fs.readFileSync(file, 'utf8'), /message number 19 /);
  });

  it('says where the log goes when there is no file (npm start logs to the console)', () => {
    assert.throws(() => readServiceLog(tempDir()), /writes no log file .*console/);
  });
});
