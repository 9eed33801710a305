// Which processes `npm test` starts, in what order, and the account of what they cost.
// Test files share a process in batches: most of a unit file's cost, and a second of an API file's, is loading node
// and the modules (the server alone is 0.6–0.7 s of CPU) and warming the JIT up, not its tests, and a browser file's
// batch shares one Chromium (test/e2e/browser.ts). A batch runs its files one after another, as one file runs its
// tests. Files with root-level hooks keep a process of their own (a hook there would reach the whole batch). The
// longest processes start first, so no long one starts last while the other workers idle.
import fs from 'node:fs';
import path from 'node:path';

/**
 * Files per process, by kind (the folder under test/). Larger batches cost less CPU (API files: 169 s in 14
 * processes, 132 s in 5) and no wall time, while there are more processes than workers to keep the cores busy.
 */
const BATCH_SIZE = { unit: 80, api: 24, e2e: 6, reliability: 3 };
// Wall seconds a file of each kind takes in a full run, four processes sharing two cores: the plan's estimate of
// a process's length. The same on every machine and every run, so CI starts the same order as a developer.
const WALL_PER_FILE = { unit: 1, api: 6, e2e: 10, reliability: 12 };
// node 20's runner sorts the files it is given by name, so each process has an entry file whose name starts with
// its place in the plan: `run-03-api-batch-2.test.js`, `run-14-unit~eval~eval-pool.test.js`.
const ENTRY = /^run-\d+-(.+)\.test\.js$/;

const kindOf = (root, file) => path.relative(path.join(root, 'test'), file).split(path.sep)[0];

function batchable(root, file) {
  // TEST_BATCH=0: every file in a process of its own, to tell a batch's side effect from a failing test.
  if (process.env.TEST_BATCH === '0' || !(kindOf(root, file) in BATCH_SIZE)) return false;
  return !/^(before|after|beforeEach|afterEach)\(/m.test(fs.readFileSync(file, 'utf8'));
}

/** A process's name in the account, from its entry file: its batch (`api-batch-2`) or its one file. */
function processName(entryFile) {
  const name = ENTRY.exec(path.basename(entryFile))?.[1] ?? path.basename(entryFile);
  return name.includes('~') ? `${name.replaceAll('~', '/')}.test.ts` : name;
}

/** The entry file name of the process at `place` of the plan: processName read backwards. */
const entryName = (place, name) => `run-${place}-${name.replace(/\.test\.ts$/, '').replaceAll('/', '~')}.test.js`;

/**
 * The processes to run, as entry files written under `out/test` and given relative to root, the longest (by
 * WALL_PER_FILE) first.
 */
export function planTests(root, out, files) {
  const compiled = (file) => path.join(out, path.relative(root, file)).replace(/\.ts$/, '.js');
  const processes = [];
  for (const [kind, size] of Object.entries(BATCH_SIZE)) {
    const pooled = files
      .filter((f) => kindOf(root, f) === kind && batchable(root, f))
      .sort((a, b) => a.localeCompare(b));
    for (let i = 0; i < pooled.length; i += size)
      processes.push({ name: `${kind}-batch-${i / size + 1}`, kind, files: pooled.slice(i, i + size) });
  }
  for (const file of files.filter((f) => !batchable(root, f)))
    processes.push({
      name: path.relative(path.join(root, 'test'), file).split(path.sep).join('/'),
      kind: kindOf(root, file),
      files: [file],
    });
  const length = (p) => p.files.length * (WALL_PER_FILE[p.kind] ?? 1);
  processes.sort((a, b) => length(b) - length(a) || a.name.localeCompare(b.name));
  const dir = path.join(out, 'test');
  // Entry files of an earlier plan would only confuse a reader of the tree.
  for (const name of fs.readdirSync(dir)) if (ENTRY.test(name)) fs.rmSync(path.join(dir, name));
  const width = String(processes.length).length;
  return processes.map((p, i) => {
    const entry = path.join(dir, entryName(String(i).padStart(width, '0'), p.name));
    const imports = p.files.map((f) => `import './${path.relative(dir, compiled(f)).split(path.sep).join('/')}';`);
    fs.writeFileSync(entry, `${imports.join('\n')}\n`);
    return path.relative(root, entry);
  });
}

/** The kind of a process by its name: the folder under test/ of its file, or the kind its batch is named after. */
const processKind = (name) => /^(\w+)[-/]/.exec(name)?.[1] ?? 'other';

/**
 * Reads the lines build/test-timing.mjs appended and answers a short account: CPU of all test processes (with their
 * servers and browsers) by kind, how busy they kept the cores from the first start to the last exit, and the
 * slowest processes.
 */
export function summariseTimings(linesFile, cores) {
  if (!fs.existsSync(linesFile)) return '';
  const rows = fs
    .readFileSync(linesFile, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .map((r) => ({ ...r, file: processName(r.file), cpu: r.self + r.children }));
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
