// A fresh directory under the system's temp dir. Its own module so a unit test that only needs a directory
// does not load the whole server through test-server.ts (about a second of CPU per test file).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function tempDir(prefix = 'dms-rules-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}
