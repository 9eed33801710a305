import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { envNameOf } from '../config.js';
import { ConflictError } from '../app-errors.js';
import { writeFileAtomicSync } from '../atomic-write.js';
import { errorMessage } from '../error-message.js';

export const CONFIG_FILE_NAME = 'config.yml';

/**
 * Edits `<dataDir>/config.yml` in place: keeps comments and settings it does not touch, refuses to
 * overwrite a file it could not read or parse, and writes atomically with 0600 (it holds secrets).
 */
export function updateConfigFile(
  dataDir: string,
  changes: Record<string, string | boolean | Record<string, unknown> | null>,
): void {
  const file = path.join(dataDir, CONFIG_FILE_NAME);
  const doc = readDocument(file);
  for (const [key, value] of Object.entries(changes)) {
    removeAliases(doc, envNameOf(key));
    if (value !== null) doc.set(key, typeof value === 'object' ? doc.createNode(value) : value);
  }
  writeFileAtomicSync(file, doc.toString(), { mode: 0o600 });
}

function readDocument(file: string): YAML.Document {
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new ConflictError(`${file} could not be read (${errorMessage(err)}); it was left untouched.`);
    }
  }
  const doc = YAML.parseDocument(text);
  if (doc.errors.length > 0) {
    throw new ConflictError(
      `${file} is not valid YAML (${doc.errors[0].message}); fix or remove it, it was left untouched.`,
    );
  }
  if (doc.contents === null) {
    // An empty or comment-only file: start a mapping, keeping the comment at the top.
    const fresh = new YAML.Document({});
    fresh.commentBefore = doc.commentBefore ?? doc.comment;
    return fresh;
  }
  if (!YAML.isMap(doc.contents)) {
    throw new ConflictError(`${file} must be a mapping of settings; fix or remove it, it was left untouched.`);
  }
  return doc;
}

function removeAliases(doc: YAML.Document, envName: string): void {
  const map = doc.contents as YAML.YAMLMap;
  map.items = map.items.filter((pair) => !(YAML.isScalar(pair.key) && envNameOf(String(pair.key.value)) === envName));
}
