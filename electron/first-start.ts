import fs from 'node:fs';
import path from 'node:path';

const RULE_FILE = /\.ya?ml$/i;

/**
 * On the very first start (the rules dir does not exist yet) fills it with the shipped examples.
 * Copied into a temporary sibling and renamed, so a crash never leaves half the examples; an existing
 * folder, even an empty one, is the user's and is left alone. Plain reads and writes, because the
 * examples sit inside app.asar, which supports those but not fs.cp.
 */
export function seedRulesDir(rulesDir: string, examplesDir: string): boolean {
  if (fs.existsSync(rulesDir)) return false;
  fs.mkdirSync(path.dirname(rulesDir), { recursive: true });
  const tmp = `${rulesDir}.seeding-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp);
  if (fs.existsSync(examplesDir)) copyRules(examplesDir, tmp, 0);
  fs.renameSync(tmp, rulesDir);
  return true;
}

// One level of package folders, as the rules store allows.
function copyRules(from: string, to: string, depth: number): void {
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory() && depth === 0) {
      fs.mkdirSync(target);
      copyRules(source, target, depth + 1);
    } else if (entry.isFile() && RULE_FILE.test(entry.name)) {
      fs.writeFileSync(target, fs.readFileSync(source));
    }
  }
}
