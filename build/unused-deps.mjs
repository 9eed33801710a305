// `npm run boundaries`, after dependency-cruiser: every dependency package.json lists is used.
// dependency-cruiser checks what the code imports; this checks the other direction. A runtime dependency must
// be imported by the shipped code (server/, electron/); a devDependency by the Web UI, the tests, the
// benchmarks or the build, or be a tool a script runs (one of its bins named in package.json scripts, .ci/ or
// build/); `@types/x` counts as used when `x` is. Prints what is unused and exits 1, or prints nothing.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const root = path.resolve(path.dirname(SELF), '..');
const SHIPPED = ['server', 'electron'];
const ELSEWHERE = ['renderer/src', 'test', 'bench', 'build', 'eslint.config.js'];
const SOURCE = /\.(ts|mts|cts|js|mjs|cjs)$/;
// Bare specifiers of static imports and exports, dynamic imports and requires.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)['"]([^'"./][^'"]*)['"]/g;

function sourceFiles(entry) {
  const full = path.join(root, entry);
  if (!fs.existsSync(full)) return [];
  if (fs.statSync(full).isFile()) return [full];
  return fs
    .readdirSync(full, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && SOURCE.test(d.name))
    .map((d) => path.join(d.parentPath ?? d.path, d.name))
    .filter((f) => f !== SELF && !f.includes(`${path.sep}node_modules${path.sep}`));
}

function packagesImportedBy(entries) {
  const found = new Set();
  for (const file of entries.flatMap(sourceFiles)) {
    for (const [, spec] of fs.readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      if (spec.startsWith('node:')) continue;
      found.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
    }
  }
  return found;
}

function binsOf(name) {
  const file = path.join(root, 'node_modules', name, 'package.json');
  if (!fs.existsSync(file)) return [name];
  const { bin } = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (typeof bin === 'string') return [name.replace(/^@[^/]+\//, '')];
  return Object.keys(bin ?? {});
}

/** Everything that may run a tool by name: the npm scripts, CI and the build files. */
function scriptText(pkg) {
  const texts = [Object.values(pkg.scripts ?? {}).join('\n')];
  for (const dir of ['.ci', 'build']) {
    const full = path.join(root, dir);
    if (!fs.existsSync(full)) continue;
    for (const name of fs.readdirSync(full)) {
      const file = path.join(full, name);
      if (file !== SELF && fs.statSync(file).isFile()) texts.push(fs.readFileSync(file, 'utf8'));
    }
  }
  return texts.join('\n');
}

const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const shipped = packagesImportedBy(SHIPPED);
const elsewhere = packagesImportedBy(ELSEWHERE);
const scripts = scriptText(pkg);
const namedInScripts = (name) =>
  binsOf(name).some((bin) =>
    new RegExp(`(^|[^\\w@/-])${bin.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^\\w-]|$)`, 'm').test(scripts),
  );
const used = (name) => {
  const typed = /^@types\/(.+)$/.exec(name);
  if (typed) {
    const of = typed[1].includes('__') ? `@${typed[1].replace('__', '/')}` : typed[1];
    return of === 'node' || shipped.has(of) || elsewhere.has(of);
  }
  return shipped.has(name) || elsewhere.has(name) || namedInScripts(name);
};

const problems = [];
for (const name of Object.keys(pkg.dependencies ?? {})) {
  if (shipped.has(name)) continue;
  problems.push(
    elsewhere.has(name)
      ? `dependency ${name} is imported only outside server/ and electron/: make it a devDependency`
      : `dependency ${name} is imported by nothing: remove it`,
  );
}
for (const name of Object.keys(pkg.devDependencies ?? {})) {
  if (!used(name)) problems.push(`devDependency ${name} is imported by nothing and run by no script: remove it`);
}
if (problems.length > 0) {
  process.stderr.write(`${problems.map((p) => `  unused-dependency: ${p}`).join('\n')}\n\n`);
  process.stderr.write(`x ${problems.length} unused ${problems.length === 1 ? 'dependency' : 'dependencies'}\n`);
  process.exitCode = 1;
}
