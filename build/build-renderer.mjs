// Bundles the Web UI (renderer/) into dist/renderer: index.html plus content-hashed JS and CSS under assets/,
// so the server can cache assets forever and index.html never. No inline script or style (strict CSP).
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const outDir = path.join(root, 'dist', 'renderer');
const watch = process.argv.includes('--watch');

fs.rmSync(outDir, { recursive: true, force: true });
fs.mkdirSync(path.join(outDir, 'assets'), { recursive: true });

const options = {
  entryPoints: { app: path.join(root, 'renderer', 'src', 'main.ts') },
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome120'],
  minify: !watch,
  sourcemap: true,
  outdir: path.join(outDir, 'assets'),
  entryNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'linked',
  logLevel: 'warning',
};

function writeIndex(metafile) {
  const outputs = Object.keys(metafile.outputs).map((file) => path.relative(outDir, path.resolve(root, file)));
  const js = outputs.find((f) => /app-[^/]*\.js$/.test(f));
  const css = outputs.find((f) => /app-[^/]*\.css$/.test(f));
  if (!js || !css) throw new Error(`renderer build produced no app js/css: ${outputs.join(', ')}`);
  const template = fs.readFileSync(path.join(root, 'renderer', 'index.html'), 'utf8');
  const html = template.replace('%APP_CSS%', `/${css}`).replace('%APP_JS%', `/${js}`);
  fs.writeFileSync(path.join(outDir, 'index.html'), html);
  fs.copyFileSync(path.join(root, 'renderer', 'favicon.svg'), path.join(outDir, 'favicon.svg'));
}

if (watch) {
  const ctx = await esbuild.context({
    ...options,
    plugins: [{ name: 'index', setup: (b) => b.onEnd((r) => r.metafile && writeIndex(r.metafile)) }],
  });
  await ctx.watch();
  console.log('renderer: watching');
} else {
  const result = await esbuild.build(options);
  writeIndex(result.metafile);
  const size = Object.entries(result.metafile.outputs)
    .filter(([f]) => !f.endsWith('.map'))
    .reduce((sum, [, o]) => sum + o.bytes, 0);
  console.log(`renderer: built dist/renderer (${Math.round(size / 1024)} KB)`);
}
