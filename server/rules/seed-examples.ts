import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../log.js';
import { isRuleFilePath, parseRuleFilePath } from './file-names.js';

/**
 * First start: copies the shipped example rules into an empty rules dir (docs/rule-files.md#layout). A dir with
 * anything in it is the user's and is left alone; so is the examples dir itself (the default
 * SVC_RULES_DIR is the project's own `rules.d`). Returns the relative paths copied.
 */
export function seedExampleRules(rulesDir: string, examplesDir: string, logger: Logger): string[] {
  if (!fs.existsSync(examplesDir) || !fs.existsSync(rulesDir)) return [];
  if (fs.realpathSync(rulesDir) === fs.realpathSync(examplesDir)) return [];
  if (fs.readdirSync(rulesDir).length > 0) return [];

  const copied: string[] = [];
  const copy = (relative: string) => {
    if (!isRuleFilePath(parseRuleFilePath(relative))) return;
    const target = path.join(rulesDir, ...relative.split('/'));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(path.join(examplesDir, ...relative.split('/')), target, fs.constants.COPYFILE_EXCL);
    copied.push(relative);
  };
  for (const entry of fs.readdirSync(examplesDir, { withFileTypes: true })) {
    if (entry.isFile()) copy(entry.name);
    else if (entry.isDirectory() && !entry.name.startsWith('.')) {
      for (const inner of fs.readdirSync(path.join(examplesDir, entry.name), { withFileTypes: true })) {
        if (inner.isFile()) copy(`${entry.name}/${inner.name}`);
      }
    }
  }
  if (copied.length > 0)
    logger.info(`rules: the rules dir was empty; copied ${copied.length} example rule files into ${rulesDir}`);
  return copied.sort();
}
