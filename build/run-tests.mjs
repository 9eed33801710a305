// `npm test`: builds the Web UI when its build script exists, then runs every test file with node's runner.
// Node 20 does not expand globs, so the files are listed here; zero tests found is a failure, not a pass.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const only = process.argv.slice(2);

function findTests(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return findTests(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

const files = (only.length ? only.map((f) => path.resolve(f)) : findTests(path.join(root, 'test'))).sort();
if (files.length === 0) {
  console.error('no test files found under test/');
  process.exit(1);
}

if (fs.existsSync(path.join(root, 'build', 'build-renderer.mjs'))) {
  const build = spawnSync(process.execPath, [path.join(root, 'build', 'build-renderer.mjs')], { stdio: 'inherit', cwd: root });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const tap = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dms-rules-test-')), 'report.tap');
const run = spawnSync(
  process.execPath,
  [
    '--import', 'tsx',
    '--test',
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=tap', `--test-reporter-destination=${tap}`,
    ...files.map((f) => path.relative(root, f)),
  ],
  { stdio: 'inherit', cwd: root, env: { ...process.env, NODE_ENV: 'test' } },
);

const report = fs.existsSync(tap) ? fs.readFileSync(tap, 'utf8') : '';
const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(report)?.[1] ?? 0);
const [tests, pass, fail, skipped] = [count('tests'), count('pass'), count('fail'), count('skipped') + count('todo')];
console.log(`\n${pass} passed, ${fail} failed${skipped ? `, ${skipped} skipped` : ''}`);
if (tests === 0) {
  console.error('no test ran');
  process.exit(1);
}
process.exit(run.status === 0 && fail === 0 ? 0 : 1);
