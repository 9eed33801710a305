// `npm test`: builds the Web UI when its build script exists, then runs every test file with node's runner.
// Node 20 does not expand globs, so the files are listed here; zero tests found is a failure, not a pass.
// With --coverage (`npm run coverage`), V8 records coverage of server/, electron/ and tools/ (config in
// .c8rc.json), and the per-file table and a summary line are printed; off by default, as it costs a sixth of the
// run's CPU (docs/coverage.md). build/test-plan.mjs says which processes run in what order; each reports its wall
// and CPU time (build/test-timing.mjs).
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { planTests, summariseTimings } from './test-plan.mjs';
import { transpileTests } from './transpile-tests.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const coverage = process.argv.includes('--coverage');
const only = process.argv.slice(2).filter((arg) => arg !== '--coverage');

function findTests(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return findTests(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

// Wall seconds of each phase, printed at the end: where a run's time went.
const phases = [];
let phaseStart = performance.now();
const phaseDone = (name) => {
  const now = performance.now();
  phases.push(`${name} ${((now - phaseStart) / 1000).toFixed(1)} s`);
  phaseStart = now;
};

// Arguments are test files or folders of them (every `.test.ts` below); none means all of test/.
const args = only.length ? only.map((f) => path.resolve(f)) : [path.join(root, 'test')];
const missing = args.filter((f) => !fs.existsSync(f));
if (missing.length > 0) {
  console.error(`no such test file or folder: ${missing.map((f) => path.relative(process.cwd(), f)).join(', ')}`);
  process.exit(1);
}
const files = [...new Set(args.flatMap((f) => (fs.statSync(f).isDirectory() ? findTests(f) : [f])))];
if (files.length === 0) {
  console.error(`no test files found under ${args.map((f) => path.relative(process.cwd(), f) || '.').join(', ')}`);
  process.exit(1);
}

/** A digest of the Web UI's sources and build script: the bundle is rebuilt only when it changes. */
function rendererInputs() {
  const hash = crypto.createHash('sha256');
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else hash.update(`${path.relative(root, full)}\0`).update(fs.readFileSync(full));
    }
  };
  walk(path.join(root, 'renderer'));
  hash.update(fs.readFileSync(path.join(root, 'build', 'build-renderer.mjs')));
  return hash.digest('hex');
}

const buildScript = path.join(root, 'build', 'build-renderer.mjs');
if (fs.existsSync(buildScript)) {
  const stamp = path.join(root, 'dist', 'renderer', '.inputs');
  const inputs = rendererInputs();
  const built = fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === inputs;
  if (built) console.log('renderer: dist/renderer is up to date');
  else {
    const build = spawnSync(process.execPath, [buildScript], { stdio: 'inherit', cwd: root });
    if (build.status !== 0) process.exit(build.status ?? 1);
    fs.writeFileSync(stamp, inputs);
  }
}

// The test files and what they load run as JavaScript transpiled once (build/transpile-tests.mjs).
phaseDone('web UI build');
const out = await transpileTests(root);
phaseDone('transpile');
const compiled = planTests(root, out, files);
const timingLines = path.join(out, 'timings.jsonl');
fs.rmSync(timingLines, { force: true });

// Two processes per core: most of a test file's time is waiting (HTTP, fsync, child servers, Chromium), and with two
// per core both cores stay busy; three per core took longer (docs/performance.md, "Tests").
const concurrency = Number(process.env.TEST_CONCURRENCY) || Math.max(2, os.availableParallelism() * 2);
// Everything the run writes to the temp dir (its report, the tests' data folders, Chromium's profiles) goes under
// one folder of its own, removed at the end: tests that fail before their clean-up leave nothing behind.
const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-rules-test-'));
const testTemp = path.join(runDir, 'tmp');
fs.mkdirSync(testTemp);
const tap = path.join(runDir, 'report.tap');
const coverageRaw = path.join(root, 'coverage', 'tmp');
if (coverage) fs.rmSync(path.join(root, 'coverage'), { recursive: true, force: true });
const run = spawnSync(
  process.execPath,
  [
    // Stack traces name the TypeScript lines (the transpiled files carry inline source maps).
    '--enable-source-maps',
    // Each test process appends its wall and CPU time to $TEST_TIMINGS_FILE as it exits.
    `--import=${path.join(root, 'build', 'test-timing.mjs')}`,
    '--test',
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
    env: {
      ...process.env,
      NODE_ENV: 'test',
      TMPDIR: testTemp,
      TEST_TIMINGS_FILE: timingLines,
      ...(coverage ? { NODE_V8_COVERAGE: coverageRaw } : {}),
    },
  },
);

// The per-file table, then one line: not a gate, the figures are for reading.
function printCoverage() {
  const c8 = path.join(root, 'node_modules', 'c8', 'bin', 'c8.js');
  const report = spawnSync(process.execPath, [c8, 'report', '--reporter=text', '--reporter=json-summary'], {
    cwd: root,
    encoding: 'utf8',
  });
  const summary = path.join(root, 'coverage', 'coverage-summary.json');
  if (report.status !== 0 || !fs.existsSync(summary)) {
    console.log(`\ncoverage: not measured (${(report.stderr || 'no report').trim().split('\n')[0]})`);
    return;
  }
  const { total } = JSON.parse(fs.readFileSync(summary, 'utf8'));
  console.log(`\n${report.stdout.trimEnd()}`);
  console.log(
    `\ncoverage: ${total.lines.pct}% of lines, ${total.branches.pct}% of branches, ${total.functions.pct}% of functions in server/, electron/ and tools/`,
  );
}

const report = fs.existsSync(tap) ? fs.readFileSync(tap, 'utf8') : '';
fs.rmSync(runDir, { recursive: true, force: true });
const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(report)?.[1] ?? 0);
const [tests, pass, fail, skipped] = [count('tests'), count('pass'), count('fail'), count('skipped') + count('todo')];
// A test whose file ended before it finished (a promise left pending, a crash) is cancelled, not failed.
const cancelled = count('cancelled');
phaseDone('tests');
const account = summariseTimings(timingLines, os.availableParallelism());
if (account) console.log(`\n${account}`);
if (coverage && fs.existsSync(coverageRaw)) {
  printCoverage();
  phaseDone('coverage report');
}
console.log(`\nwall time: ${phases.join(', ')}`);
console.log(
  `\n${pass} passed, ${fail} failed${cancelled ? `, ${cancelled} cancelled` : ''}${skipped ? `, ${skipped} skipped` : ''}`,
);
if (tests === 0) {
  console.error('no test ran');
  process.exit(1);
}
process.exit(run.status === 0 && fail === 0 && cancelled === 0 ? 0 : 1);
