import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { it } from 'node:test';
import { PROJECT_ROOT } from '../../../server/project-paths.js';

// The renderer has its own tsconfig (DOM lib, bundler resolution), so the project's tsc does not see it.
it('the Web UI source typechecks under its strict tsconfig', () => {
  const tsc = path.join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '--noEmit', '-p', path.join(PROJECT_ROOT, 'renderer', 'tsconfig.json')], { encoding: 'utf8' });
  assert.equal(result.status, 0, `tsc -p renderer/tsconfig.json failed:\n${result.stdout}${result.stderr}`);
});
