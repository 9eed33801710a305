import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../../../helpers/temp-dir.js';
import { moduleUrl, SCRIPT_ROOT, scriptArgs } from '../../../helpers/module-script.js';

describe('rest file', () => {
  it('keeps in memory a text the disk took only part of, and reads every text back whole', () => {
    const file = path.join(tempDir(), 'write-journal.jsonl.rests');
    // A file size limit of one block makes the kernel write part of the text that crosses it, as a disk that fills
    // up does; the writes after it fail.
    const script = `
      import { createMemoryLogger } from ${moduleUrl('server/log.ts')};
      import { openRestFile } from ${moduleUrl('server/runs/journal/rest-file.ts')};
      const rests = openRestFile(${JSON.stringify(file)}, createMemoryLogger());
      const texts = Array.from({ length: 10 }, (_, i) => JSON.stringify([i, 'x'.repeat(300)]));
      const held = texts.map((text) => rests.put(text));
      console.log(JSON.stringify({
        spilled: held.filter((rest) => typeof rest !== 'string').length,
        whole: held.map((rest, i) => { try { return rests.get(rest) === texts[i]; } catch { return false; } }),
      }));
    `;
    const args = scriptArgs(script);
    const child = spawnSync('/bin/sh', ['-c', 'ulimit -f 1 && exec "$0" "$@"', process.execPath, ...args], {
      cwd: SCRIPT_ROOT,
      encoding: 'utf8',
    });
    assert.equal(child.status, 0, child.stderr);
    const { spilled, whole } = JSON.parse(child.stdout) as { spilled: number; whole: boolean[] };
    assert.ok(spilled > 0 && spilled < 10, `the file took the first texts only (${spilled})`);
    assert.deepEqual(whole, Array<boolean>(10).fill(true));
  });
});
