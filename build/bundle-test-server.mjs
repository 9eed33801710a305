// The service as one bundled file for the tests that start it as a process of their own (test/helpers/
// child-server.ts; about 40 starts a run): node then resolves and loads one file instead of some 700, which takes
// a third off a start's CPU (docs/performance.md, "Tests"). Each module keeps the `import.meta.url` it has
// in the transpiled tree beside it, so what it finds from there (the project root, the eval workers) is found.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

/**
 * Bundles `server/main.ts` into `<out>/server/main.bundle.js` when it is missing, a server source changed, or the
 * installed packages did (the bundle holds their code too: npm rewrites `node_modules/.package-lock.json` at each
 * install that changes them).
 */
export async function bundleTestServer(root, out, changed) {
  const bundle = path.join(out, 'server', 'main.bundle.js');
  const serverDir = path.join(root, 'server') + path.sep;
  const built = fs.statSync(bundle, { throwIfNoEntry: false });
  const packages = fs.statSync(path.join(root, 'node_modules', '.package-lock.json'), { throwIfNoEntry: false });
  const stale = !built || (packages !== undefined && packages.mtimeMs > built.mtimeMs);
  if (!stale && !changed.some((file) => file.startsWith(serverDir))) return;
  const transpiledUrl = (file) =>
    JSON.stringify(pathToFileURL(path.join(out, path.relative(root, file)).replace(/\.ts$/, '.js')).href);
  await build({
    entryPoints: [path.join(root, 'server', 'main.ts')],
    outfile: bundle,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    // Bundled CommonJS packages require node's own modules; an ES module has no `require` of its own.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    sourcemap: true,
    sourcesContent: false,
    minifyWhitespace: true,
    keepNames: true,
    logLevel: 'error',
    plugins: [
      {
        name: 'transpiled-locations',
        setup(b) {
          b.onLoad({ filter: /[/\\]server[/\\].*\.ts$/ }, (args) => ({
            contents: fs.readFileSync(args.path, 'utf8').replaceAll('import.meta.url', transpiledUrl(args.path)),
            loader: 'ts',
          }));
        },
      },
    ],
  });
}
