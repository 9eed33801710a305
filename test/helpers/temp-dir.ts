// A fresh directory under the system's temp dir, in a module of its own: a unit test that needs only a directory
// then does not load the whole server through test-server.ts (about a second of CPU per test file).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function tempDir(prefix = 'dms-rules-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}
