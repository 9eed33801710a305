// `npm test`: builds the Web UI when its build script exists, then runs every test file with node's runner.
// Node 20 does not expand globs, so the files are listed here; zero tests found is a failure, not a pass.
// V8 records coverage of server/, electron/ and tools/ (config in .c8rc.json) and one summary line is printed;
// `npm run coverage` shows the per-file table of the last run. COVERAGE=0 skips it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { transpileTests } from './transpile-tests.mjs';

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

// The longest kinds first (browser, crash, API), so no long file starts last while the other cores idle.
const SLOW_FIRST = ['e2e', 'reliability', 'api'];
const rank = (file) => {
  const kind = SLOW_FIRST.indexOf(path.relative(path.join(root, 'test'), file).split(path.sep)[0]);
  return kind === -1 ? SLOW_FIRST.length : kind;
};
const files = (only.length ? only.map((f) => path.resolve(f)) : findTests(path.join(root, 'test'))).sort(
  (a, b) => rank(a) - rank(b) || a.localeCompare(b),
);
if (files.length === 0) {
  console.error('no test files found under test/');
  process.exit(1);
}

if (fs.existsSync(path.join(root, 'build', 'build-renderer.mjs'))) {
  const build = spawnSync(process.execPath, [path.join(root, 'build', 'build-renderer.mjs')], {
    stdio: 'inherit',
    cwd: root,
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// The test files and what they load run as JavaScript transpiled once (build/transpile-tests.mjs).
const out = await transpileTests(root);
const compiled = files.map((f) => path.relative(root, path.join(out, path.relative(root, f))).replace(/\.ts$/, '.js'));

const concurrency = Number(process.env.TEST_CONCURRENCY) || Math.max(2, os.availableParallelism() * 2);
const tap = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dms-rules-test-')), 'report.tap');
const coverage = process.env.COVERAGE !== '0';
const coverageRaw = path.join(root, 'coverage', 'tmp');
if (coverage) fs.rmSync(path.join(root, 'coverage'), { recursive: true, force: true });
const run = spawnSync(
  process.execPath,
  [
    // Stack traces name the TypeScript lines (the transpiled files carry inline source maps).
    '--enable-source-maps',
    '--test',
    // Test files run side by side: most of a test's time is waiting (HTTP, child processes, Chromium).
    `--test-concurrency=${concurrency}`,
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=tap',
    `--test-reporter-destination=${tap}`,
    ...compiled,
  ],
  {
    stdio: 'inherit',
    cwd: root,
    env: { ...process.env, NODE_ENV: 'test', ...(coverage ? { NODE_V8_COVERAGE: coverageRaw } : {}) },
  },
);

// One line, not a gate: the figure is for reading, the per-file table is `npm run coverage`.
function coverageLine() {
  const c8 = path.join(root, 'node_modules', 'c8', 'bin', 'c8.js');
  const report = spawnSync(process.execPath, [c8, 'report'], { cwd: root, encoding: 'utf8' });
  const summary = path.join(root, 'coverage', 'coverage-summary.json');
  if (report.status !== 0 || !fs.existsSync(summary))
    return `coverage: not measured (${(report.stderr || 'no report').trim().split('\n')[0]})`;
  const { total } = JSON.parse(fs.readFileSync(summary, 'utf8'));
  return `coverage: ${total.lines.pct}% of lines, ${total.branches.pct}% of branches, ${total.functions.pct}% of functions in server/, electron/ and tools/ (npm run coverage: per file)`;
}

const report = fs.existsSync(tap) ? fs.readFileSync(tap, 'utf8') : '';
const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(report)?.[1] ?? 0);
const [tests, pass, fail, skipped] = [count('tests'), count('pass'), count('fail'), count('skipped') + count('todo')];
if (coverage && fs.existsSync(coverageRaw)) console.log(`\n${coverageLine()}`);
console.log(`\n${pass} passed, ${fail} failed${skipped ? `, ${skipped} skipped` : ''}`);
if (tests === 0) {
  console.error('no test ran');
  process.exit(1);
}
process.exit(run.status === 0 && fail === 0 ? 0 : 1);
