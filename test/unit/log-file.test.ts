import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createFileLogger, readServiceLog, serviceLogFile } from '../../server/log-file.js';
import { tempDir } from '../helpers/test-server.js';

describe('the service log file (desktop app)', () => {
  it('appends one line per message in the data dir, line breaks escaped', () => {
    const dataDir = tempDir();
    const logger = createFileLogger(serviceLogFile(dataDir));
    logger.info('started');
    logger.error('dms said:\nforged line');
    const lines = fs
      .readFileSync(path.join(dataDir, 'logs', 'service.log'), 'utf8')
      .trimEnd()
      .split('\n');
    assert.equal(lines.length, 2);
    assert.match(lines[0], /^\d{4}-\d\d-\d\dT.* info {2}started$/);
    assert.match(lines[1], / error dms said:\\nforged line$/);
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
