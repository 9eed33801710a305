import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project (or packaged app) root: the nearest folder above this file holding our package.json. */
function findRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'package.json');
    if (fs.existsSync(candidate)) {
      const pkg = JSON.parse(fs.readFileSync(candidate, 'utf8')) as { name?: string };
      if (pkg.name === 'dms-rules') return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('dms-rules: cannot find the project root (package.json)');
    dir = parent;
  }
}

export const PROJECT_ROOT = findRoot();

export const VERSION: string = (
  JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

/** Example rules shipped with the app, copied into an empty rules dir on first start. */
export const EXAMPLE_RULES_DIR = path.join(PROJECT_ROOT, 'rules.d');

/** The built Web UI (`npm run build`). */
export const RENDERER_DIST_DIR = path.join(PROJECT_ROOT, 'dist', 'renderer');
