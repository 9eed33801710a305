import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { createMemoryLogger } from '../../server/log.js';
import { serviceLogFile } from '../../server/log-file.js';
import { logUncaught } from '../../server/process-hooks.js';
import { tempDir } from '../helpers/temp-dir.js';
import { moduleUrl, SCRIPT_ROOT, scriptArgs } from '../helpers/module-script.js';

describe('unhandled rejections and uncaught exceptions', () => {
  it('logs a rejection nobody awaited with its stack, and the hooks can be removed', () => {
    const proc = new EventEmitter();
    const logger = createMemoryLogger();
    const remove = logUncaught(logger, proc);
    proc.emit('unhandledRejection', new Error('forgotten await'));
    proc.emit('unhandledRejection', 'a plain string');
    assert.deepEqual(logger.lines, [
      'error unhandled promise rejection: forgotten await',
      'error unhandled promise rejection: a plain string',
    ]);
    assert.match(String(logger.records[0].fields?.stack), /Error: forgotten await\n\s+at /);
    assert.equal(logger.records[1].fields?.stack, null);
    remove();
    assert.equal(proc.listenerCount('unhandledRejection'), 0);
    assert.equal(proc.listenerCount('uncaughtExceptionMonitor'), 0);
  });

  it('in a real process: the rejection is logged and the process goes on; the exception is logged and still ends it', () => {
    const dataDir = tempDir();
    const file = serviceLogFile(dataDir);
    const script = `
      import { createFileLogger } from ${moduleUrl('server/log-file.ts')};
      import { logUncaught } from ${moduleUrl('server/process-hooks.ts')};
      const logger = createFileLogger(${JSON.stringify(file)});
      logUncaught(logger);
      Promise.reject(new Error('forgotten await'));
      setTimeout(() => {
        logger.info('still running');
        throw new Error('boom');
      }, 50);
    `;
    const child = spawnSync(process.execPath, scriptArgs(script), {
      cwd: SCRIPT_ROOT,
      encoding: 'utf8',
    });
    assert.equal(child.status, 1, child.stderr);
    assert.match(child.stderr, /Error: boom/, 'Node still reports the exception as it would without the hook');
    const records = fs
      .readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(
      records.map((r) => [r.level, r.msg]),
      [
        ['error', 'unhandled promise rejection: forgotten await'],
        ['info', 'still running'],
        ['error', 'uncaught exception (uncaughtException): boom'],
      ],
    );
    assert.match(String(records[0].stack), /forgotten await/);
    assert.match(String(records[2].stack), /Error: boom\n\s+at /);
  });
});
