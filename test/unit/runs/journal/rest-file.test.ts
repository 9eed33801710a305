import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { tempDir } from '../../../helpers/temp-dir.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../../..');
// Under `npm test` this file is transpiled JavaScript beside transpiled sources; run alone under tsx, the sources.
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const moduleUrl = (file: string) =>
  JSON.stringify(pathToFileURL(path.join(ROOT, FROM_SOURCE ? file : file.replace(/\.ts$/, '.js'))).href);

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
    const args = [...(FROM_SOURCE ? ['--import', 'tsx'] : []), '--input-type=module', '-e', script];
    const child = spawnSync('/bin/sh', ['-c', 'ulimit -f 1 && exec "$0" "$@"', process.execPath, ...args], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    assert.equal(child.status, 0, child.stderr);
    const { spilled, whole } = JSON.parse(child.stdout) as { spilled: number; whole: boolean[] };
    assert.ok(spilled > 0 && spilled < 10, `the file took the first texts only (${spilled})`);
    assert.deepEqual(whole, Array<boolean>(10).fill(true));
  });
});
