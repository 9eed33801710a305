// Heap snapshots of the service process, on request (`--heapsnapshot-signal=SIGUSR2`): a bench names each one.
import fs from 'node:fs';
import path from 'node:path';
import { api } from './service-process.js';

/** Node flags for a service whose heap the bench may snapshot into `dir`. */
export const heapSnapshotArgs = (dir: string) => ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${dir}`];

/**
 * Asks the service for a heap snapshot and waits until it is written (the service answers again and the file no
 * longer grows), then renames it `<label>.heapsnapshot`. The snapshot stops the service's main thread for seconds:
 * figures measured around it are not comparable with a run without snapshots.
 */
export async function takeHeapSnapshot(dir: string, pid: number, url: string, label: string): Promise<string> {
  const before = new Set(fs.readdirSync(dir));
  process.kill(pid, 'SIGUSR2');
  let file: string | undefined;
  let size = -1;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    file ??= fs.readdirSync(dir).find((f) => !before.has(f) && f.endsWith('.heapsnapshot'));
    if (!file) continue;
    // The snapshot stops the service; a kept-alive connection it closed meanwhile fails once.
    await api(url, '/api/health').catch(() => api(url, '/api/health'));
    const now = fs.statSync(path.join(dir, file)).size;
    if (now === size && now > 0) break;
    size = now;
  }
  const named = path.join(dir, `${label}.heapsnapshot`);
  fs.renameSync(path.join(dir, file), named);
  return named;
}
