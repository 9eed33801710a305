import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** What one durable append costs on this disk right now: the floor any "saved before the 202" design pays. */
export async function fsyncFloor(count = 200): Promise<number[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-rules-fsync-'));
  const handle = await fs.promises.open(path.join(dir, 'probe'), 'a');
  const times: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const t0 = performance.now();
      await handle.appendFile(`${'x'.repeat(399)}\n`);
      await handle.datasync();
      times.push(performance.now() - t0);
    }
  } finally {
    await handle.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return times;
}
