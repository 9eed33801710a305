import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

export interface AtomicWriteOptions {
  /** File mode of the new file (default 0644); pinned with chmod so an inherited ACL cannot widen it. */
  mode?: number;
}

/** Dot-prefixed and unique, in the target's folder, so listings and watchers ignore it and rename stays atomic. */
function tempNameFor(target: string): string {
  return path.join(
    path.dirname(target),
    `.${path.basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
}

/**
 * Writes a file atomically: a unique temp file in the same folder, fsync, then rename over the target.
 * Readers (and a crash) see the old file or the new one, never half of either; concurrent writers each
 * rename a complete file, so the last rename wins with a whole file. A symlink target is written through.
 */
export async function writeFileAtomic(
  file: string,
  content: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const mode = options.mode ?? 0o644;
  const target = await fsp.realpath(file).catch(() => file);
  await fsp.mkdir(path.dirname(target), { recursive: true });
  const temp = tempNameFor(target);
  const handle = await fsp.open(temp, 'wx', mode);
  try {
    await handle.writeFile(content);
    await handle.chmod(mode);
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

/** The same, for the few writers that must finish before returning (settings, the session secret). */
export function writeFileAtomicSync(file: string, content: string, options: AtomicWriteOptions = {}): void {
  const mode = options.mode ?? 0o644;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = tempNameFor(file);
  const fd = fs.openSync(temp, 'wx', mode);
  try {
    fs.writeFileSync(fd, content);
    fs.fchmodSync(fd, mode);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.renameSync(temp, file);
  } catch (err) {
    fs.rmSync(temp, { force: true });
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
