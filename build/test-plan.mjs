// Which processes `npm test` starts, in what order, and what the last run's timings say about them.
// Unit, API and browser test files share a process in batches: most of a unit file's cost, and a second of an API
// file's, is loading node and the modules (the server alone is 0.6–0.7 s of CPU), not its tests, and a browser
// file's batch shares one Chromium (test/e2e/browser.ts). A batch runs its files one after another, as one file
// runs its tests. Files with root-level hooks keep a process of their own (a hook there would reach the whole
// batch), as do reliability files (child servers killed on purpose, long waits). The longest processes start
// first, by the last run's wall times, so no long one starts last while the other workers idle.
import fs from 'node:fs';
import path from 'node:path';

/** Files per process, by kind (the folder under test/). */
const BATCH_SIZE = { unit: 16, api: 6, e2e: 3 };
// Without timings from an earlier run: browser, crash, API, then the rest.
const SLOW_FIRST = ['e2e', 'reliability', 'api'];

const kindOf = (root, file) => path.relative(path.join(root, 'test'), file).split(path.sep)[0];

function batchable(root, file) {
  // TEST_BATCH=0: every file in a process of its own, to tell a batch's side effect from a failing test.
  if (process.env.TEST_BATCH === '0' || !(kindOf(root, file) in BATCH_SIZE)) return false;
  return !/^(before|after|beforeEach|afterEach)\(/m.test(fs.readFileSync(file, 'utf8'));
}

/**
 * The processes to run, as compiled paths relative to root: each API/browser/hooked file alone, the other unit
 * files in batch entry files written under `out`. `timings` maps a compiled path to its last wall time.
 */
export function planTests(root, out, files, timings) {
  const compiled = (file) => path.relative(root, path.join(out, path.relative(root, file))).replace(/\.ts$/, '.js');
  const alone = files.filter((f) => !batchable(root, f));
  const batches = [];
  // Entry files of an earlier plan would only confuse a reader of the tree.
  for (const name of fs.readdirSync(path.join(out, 'test')))
    if (/^\w+-batch-\d+\.test\.js$/.test(name)) fs.rmSync(path.join(out, 'test', name));
  for (const [kind, size] of Object.entries(BATCH_SIZE)) {
    const pooled = files
      .filter((f) => kindOf(root, f) === kind && batchable(root, f))
      .sort((a, b) => a.localeCompare(b));
    for (let i = 0; i < pooled.length; i += size) {
      const entry = path.join(out, 'test', `${kind}-batch-${i / size + 1}.test.js`);
      const imports = pooled
        .slice(i, i + size)
        .map((f) => `import './${path.relative(path.dirname(entry), compiled(f))}';`);
      fs.writeFileSync(entry, `${imports.join('\n')}\n`);
      batches.push(path.relative(root, entry));
    }
  }
  const rank = (file) => {
    const kind = SLOW_FIRST.indexOf(kindOf(root, file));
    return kind === -1 ? SLOW_FIRST.length : kind;
  };
  const singles = alone.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)).map(compiled);
  // Known-long first; a process without a timing keeps its kind's place ahead of the known-short ones.
  const known = (p) => timings[p] ?? Infinity;
  return [...singles, ...batches].sort((a, b) => (known(a) === known(b) ? 0 : known(b) - known(a)));
}

/** The last run's wall time per process (compiled path), or none. */
export function readTimings(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
}

/** The kind of a compiled test process: the folder under test/, or the kind a batch entry is named after. */
function processKind(file) {
  const [first, ...rest] = file.split(path.sep).slice(2);
  return rest.length > 0 ? first : (/^(\w+)-batch-/.exec(first)?.[1] ?? 'other');
}

/**
 * Reads the lines build/test-timing.mjs appended, keeps the wall times for the next run's order and answers a
 * short account: CPU of all test processes (with their servers and browsers) by kind, how busy they kept the
 * cores from the first start to the last exit, and the slowest processes.
 */
export function summariseTimings(root, linesFile, timingsFile, previous, cores) {
  if (!fs.existsSync(linesFile)) return '';
  const rows = fs
    .readFileSync(linesFile, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .map((r) => ({ ...r, file: path.relative(root, r.file), cpu: r.self + r.children }));
  fs.writeFileSync(
    timingsFile,
    `${JSON.stringify({ ...previous, ...Object.fromEntries(rows.map((r) => [r.file, r.wallMs])) }, null, 1)}\n`,
  );
  const cpu = rows.reduce((sum, r) => sum + r.cpu, 0);
  const byKind = new Map();
  for (const r of rows) byKind.set(processKind(r.file), (byKind.get(processKind(r.file)) ?? 0) + r.cpu);
  const kinds = [...byKind].map(([kind, seconds]) => `${kind} ${seconds.toFixed(0)}`).join(', ');
  const first = Math.min(...rows.map((r) => r.startMs));
  const span = (Math.max(...rows.map((r) => r.startMs + r.wallMs)) - first) / 1000;
  const busy =
    Number.isFinite(span) && span > 0
      ? `; ${(cpu / span).toFixed(2)} of ${cores} cores busy over ${span.toFixed(0)} s`
      : '';
  const slowest = [...rows]
    .sort((a, b) => b.wallMs - a.wallMs)
    .slice(0, 8)
    .map(
      (r) => `  ${(r.wallMs / 1000).toFixed(1).padStart(6)} s wall ${r.cpu.toFixed(1).padStart(6)} s CPU  ${r.file}`,
    );
  return [
    `test processes: ${rows.length}, ${cpu.toFixed(0)} s CPU in all (${kinds})${busy}; the slowest:`,
    ...slowest,
  ].join('\n');
}
