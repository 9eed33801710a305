import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../atomic-write.js';
import type { RuleFilePath } from './file-names.js';

/**
 * Drafts (docs/rule-files.md#drafts): unpublished edits kept in `<dataDir>/drafts/<relative path>`, so the rules dir
 * holds only published files and a draft is never loaded. Paths arrive already checked by `file-names`.
 */
export interface DraftStore {
  has(file: RuleFilePath): boolean;
  /** The draft text, or null when there is none. */
  read(file: RuleFilePath): Promise<string | null>;
  write(file: RuleFilePath, content: string): Promise<void>;
  /** True when a draft existed. */
  remove(file: RuleFilePath): Promise<boolean>;
}

export function createDraftStore(dataDir: string): DraftStore {
  const root = path.join(path.resolve(dataDir), 'drafts');
  const pathOf = (file: RuleFilePath) => path.join(root, ...file.path.split('/'));

  return {
    has: (file) => fs.existsSync(pathOf(file)),
    async read(file) {
      try {
        return await fsp.readFile(pathOf(file), 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
    // Drafts live in the data dir, which is the owner's only (see data-dir-privacy.ts).
    write: (file, content) => writeFileAtomic(pathOf(file), content, { mode: 0o600 }),
    async remove(file) {
      const target = pathOf(file);
      const existed = fs.existsSync(target);
      await fsp.rm(target, { force: true });
      if (file.package !== null) {
        // An empty package folder in drafts/ is clutter; a non-empty one stays.
        await fsp.rmdir(path.dirname(target)).catch(() => undefined);
      }
      return existed;
    },
  };
}
