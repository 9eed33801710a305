// Transpiles the TypeScript that tests load into `.test-build/` (JavaScript with inline source maps), so each
// test process loads plain JavaScript instead of compiling every module again through tsx's loader: that
// loader cost about half of the suite's CPU time. Types are not checked here (`npm run check` does that).
// Other files in those folders are copied; the project's other top-level entries are linked, so paths a
// test builds from its own location (docs/, README.md, rules.d/) resolve as in the source tree. No
// package.json is linked: `server/project-paths.ts` walks up to the real project root.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { bundleTestServer } from './bundle-test-server.mjs';

const TRANSPILED = ['server', 'electron', 'test', 'bench', 'tools', 'renderer'];
const NOT_LINKED = new Set([...TRANSPILED, 'package.json', 'package-lock.json', 'node_modules', '.git', 'coverage']);

function sources(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/**
 * Brings `<root>/.test-build` up to date and answers its path. Only sources changed since the last run (size and
 * modification time) are transpiled again; a change to this script, or a missing record, transpiles everything.
 */
export async function transpileTests(root) {
  const out = path.join(root, '.test-build');
  const recordFile = path.join(out, '.sources.json');
  const version = [import.meta.url, new URL('./bundle-test-server.mjs', import.meta.url)]
    .map((script) => fs.statSync(new URL(script)))
    .map((stat) => `${stat.size}:${stat.mtimeMs}`)
    .join(',');
  let record = { version: null, sources: {} };
  try {
    record = JSON.parse(fs.readFileSync(recordFile, 'utf8'));
  } catch {
    // first run, or a tree from before the record: start afresh
  }
  if (record.version !== version) {
    fs.rmSync(out, { recursive: true, force: true });
    record = { version, sources: {} };
  }
  const dirs = TRANSPILED.map((name) => path.join(root, name)).filter((dir) => fs.existsSync(dir));
  for (const dir of dirs)
    fs.cpSync(dir, path.join(out, path.relative(root, dir)), {
      recursive: true,
      filter: (src) => !src.includes(`${path.sep}node_modules`) && !(src.endsWith('.ts') && !src.endsWith('.d.ts')),
    });
  const all = dirs.flatMap(sources);
  const stamp = (file) => {
    const stat = fs.statSync(file);
    return `${stat.size}:${stat.mtimeMs}`;
  };
  const stamps = Object.fromEntries(all.map((file) => [path.relative(root, file), stamp(file)]));
  const changed = all.filter((file) => record.sources[path.relative(root, file)] !== stamps[path.relative(root, file)]);
  for (const gone of Object.keys(record.sources).filter((file) => !(file in stamps)))
    fs.rmSync(path.join(out, gone.replace(/\.ts$/, '.js')), { force: true });
  if (changed.length > 0)
    await build({
      entryPoints: changed,
      outdir: out,
      outbase: root,
      format: 'esm',
      platform: 'node',
      // 20.19 keeps `with { type: 'json' }` (an older target drops it and Node refuses the JSON import).
      target: 'node20.19',
      sourcemap: 'inline',
      // Maps without the sources' text: a stack trace needs only the mappings, and coverage reads the .ts files.
      // Every process loads the maps and, with coverage on, writes them all out again at exit.
      sourcesContent: false,
      // As tsx transforms (its `minifyWhitespace` and `keepNames`), so V8's coverage maps back to the same lines and
      // functions as when the tests ran under tsx: the coverage figures stay comparable.
      minifyWhitespace: true,
      keepNames: true,
      logLevel: 'error',
    });
  for (const file of changed) mapTypeOnlyModule(root, out, file);
  await bundleTestServer(root, out, changed);
  for (const name of fs.readdirSync(root)) {
    const link = path.join(out, name);
    if (NOT_LINKED.has(name) || name === '.test-build' || fs.lstatSync(link, { throwIfNoEntry: false })) continue;
    fs.symlinkSync(path.join(root, name), link);
  }
  fs.writeFileSync(recordFile, JSON.stringify({ version, sources: stamps }));
  return out;
}

/**
 * A module of types only transpiles to nothing, with a source map that names no source: its coverage would then
 * count for no file and the TypeScript file as never loaded. Under tsx it counted as loaded; a map naming the
 * source keeps it so.
 */
function mapTypeOnlyModule(root, out, file) {
  const js = path.join(out, path.relative(root, file)).replace(/\.ts$/, '.js');
  const code = fs.readFileSync(js, 'utf8');
  if (!code.startsWith('//# sourceMappingURL=')) return;
  const map = {
    version: 3,
    sources: [path.relative(path.dirname(js), file)],
    sourcesContent: [fs.readFileSync(file, 'utf8')],
    mappings: 'AAAA',
    names: [],
  };
  fs.writeFileSync(
    js,
    `\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(map)).toString('base64')}\n`,
  );
}
