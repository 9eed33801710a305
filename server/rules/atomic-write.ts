import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes a file atomically: a unique temp file in the same folder, fsync, then rename over the target.
 * Readers (and a crash) see the old file or the new one, never half of either; concurrent writers each
 * rename a complete file, so the last rename wins with a whole file. A symlink target is written through.
 */
export async function writeFileAtomic(file: string, content: string): Promise<void> {
  const target = await fsp.realpath(file).catch(() => file);
  const dir = path.dirname(target);
  await fsp.mkdir(dir, { recursive: true });
  // Dot-prefixed so the store's listing and the watcher ignore it.
  const temp = path.join(dir, `.${path.basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await fsp.open(temp, 'wx', 0o644);
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fsp.rename(temp, target);
  } catch (err) {
    await fsp.rm(temp, { force: true });
    throw err;
  }
}

/** Creates a file that must not exist yet (`wx`), so two creates of one name cannot both succeed. */
export async function createEmptyFile(file: string): Promise<boolean> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  try {
    const handle = await fsp.open(file, 'wx', 0o644);
    await handle.close();
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}
