import fs from 'node:fs';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';

/**
 * Traces hold document text, config.yml holds tokens: everything in the data dir is the owner's only.
 * Existing entries are narrowed to 0700 (folders) and 0600 (files), and the process umask becomes 077 so
 * whatever is written later (lowdb's own temp files, drafts, new segments) starts out private too.
 */
export function makeDataDirPrivate(dataDir: string): void {
  if (isMainThread) process.umask(0o077);
  const narrow = (entry: string) => {
    const stat = fs.lstatSync(entry);
    if (stat.isSymbolicLink()) return;
    fs.chmodSync(entry, stat.isDirectory() ? 0o700 : 0o600);
    if (stat.isDirectory()) for (const child of fs.readdirSync(entry)) narrow(path.join(entry, child));
  };
  narrow(dataDir);
}
