// `npm run dist` builds from a clean output: tsc's incremental build never deletes what a moved or removed source
// file once emitted, and electron-builder packs all of dist/server, so a stale file (such as the simulator that
// used to live in server/dms/simulator/) would ship. dist/release, the installers, is kept.
import fs from 'node:fs';
import path from 'node:path';

const dist = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', 'dist');
for (const entry of ['server', 'electron', 'renderer', 'tools', '.tsbuildinfo'])
  fs.rmSync(path.join(dist, entry), { recursive: true, force: true });
