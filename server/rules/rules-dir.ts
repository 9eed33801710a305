import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../log.js';
import { comparePaths, isRuleFilePath, parseRuleFilePath, type RuleFilePath } from './file-names.js';

/**
 * The rules directory on disk: listing (top-level files and one level of package folders) and
 * resolving checked relative paths to absolute ones. Symlinks are followed only when they stay inside.
 */
export interface RulesDir {
  readonly root: string;
  /** Every rule file, in path order. Symlinks leading outside, dot files and deeper folders are skipped. */
  list(): Promise<RuleFilePath[]>;
  /** The absolute path of a checked relative path, or null when it (or its folder) leads outside the dir. */
  resolve(file: RuleFilePath): Promise<string | null>;
}

export function createRulesDir(root: string, logger: Logger): RulesDir {
  const absRoot = path.resolve(root);
  let realRoot: string | null = null;
  const rootReal = async () => (realRoot ??= await fsp.realpath(absRoot));

  const inside = (real: string, base: string) => real === base || real.startsWith(base + path.sep);

  /** A symlink is acceptable only when its target is inside the rules dir. */
  async function staysInside(abs: string): Promise<boolean> {
    try {
      return inside(await fsp.realpath(abs), await rootReal());
    } catch (err) {
      // A missing file cannot lead anywhere; a dangling symlink's target is unknown, so refuse it.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return false;
      try {
        await fsp.lstat(abs);
        return false;
      } catch {
        return true;
      }
    }
  }

  async function entries(dir: string): Promise<fs.Dirent[]> {
    try {
      return await fsp.readdir(dir, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }

  async function kindOf(abs: string, entry: fs.Dirent): Promise<'file' | 'dir' | null> {
    if (entry.isSymbolicLink()) {
      if (!(await staysInside(abs))) {
        logger.warn(`rules: ignoring ${abs}: it is a symlink to somewhere outside the rules dir`);
        return null;
      }
      const stat = await fsp.stat(abs).catch(() => null);
      return stat?.isFile() ? 'file' : stat?.isDirectory() ? 'dir' : null;
    }
    return entry.isFile() ? 'file' : entry.isDirectory() ? 'dir' : null;
  }

  async function list(): Promise<RuleFilePath[]> {
    const files: RuleFilePath[] = [];
    // A missing rules dir (an unmounted drive, a moved folder) is an error, not "no rules": the caller keeps what it had.
    for (const entry of await fsp.readdir(absRoot, { withFileTypes: true })) {
      const abs = path.join(absRoot, entry.name);
      const kind = await kindOf(abs, entry);
      if (kind === 'file') {
        const parsed = parseRuleFilePath(entry.name);
        if (isRuleFilePath(parsed)) files.push(parsed);
      } else if (kind === 'dir' && !entry.name.startsWith('.')) {
        for (const inner of await entries(abs)) {
          const parsed = parseRuleFilePath(`${entry.name}/${inner.name}`);
          if (isRuleFilePath(parsed) && (await kindOf(path.join(abs, inner.name), inner)) === 'file')
            files.push(parsed);
        }
      }
    }
    return files.sort((a, b) => comparePaths(a.path, b.path));
  }

  async function resolve(file: RuleFilePath): Promise<string | null> {
    const abs = path.join(absRoot, ...file.path.split('/'));
    if (!inside(abs, absRoot)) return null;
    if (file.package !== null && !(await staysInside(path.join(absRoot, file.package)))) return null;
    if (!(await staysInside(abs))) return null;
    return abs;
  }

  return { root: absRoot, list, resolve };
}
