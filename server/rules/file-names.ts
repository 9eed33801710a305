/**
 * Rule file names and ids (docs/rule-files.md#file-ids). An id is the base64url of the path relative to the rules dir;
 * every id and name is checked here, as text, before anything touches the filesystem, so nothing that
 * decodes to a path outside the rules dir (`..`, absolute, encoded separators, NUL) ever reaches `fs`.
 */

export const VARS_FILE_NAME = '_vars.yml';
const MAX_NAME_BYTES = 255;
const RULE_FILE_EXTENSIONS = ['.yml', '.yaml'];
// Characters Windows or shells make dangerous in a file name, control characters, and both separators.
// eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
const FORBIDDEN_CHARS = /[\\/:*?"<>|\u0000-\u001f\u007f]/;

// Windows opens the device, not a file, for these names with any extension (`nul.yml`, `LPT1/`).
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;

export interface RuleFilePath {
  /** Relative path with `/`, e.g. `finance/invoices.yml`. */
  path: string;
  name: string;
  package: string | null;
  isVars: boolean;
}

/** Why a name is refused, as a message a person can act on; null when the segment is fine. */
function segmentProblem(segment: string, what: string): string | null {
  if (segment === '') return `the ${what} is empty`;
  if (segment === '.' || segment === '..') return `"${segment}" is not allowed`;
  if (segment.startsWith('.')) return `the ${what} may not start with "."`;
  if (FORBIDDEN_CHARS.test(segment))
    return `the ${what} "${segment}" contains a character that is not allowed (\\ / : * ? " < > | or a control character)`;
  if (segment !== segment.trim()) return `the ${what} may not start or end with a space`;
  if (segment.endsWith('.')) return `the ${what} may not end with "." (Windows drops it)`;
  if (WINDOWS_DEVICE.test(segment))
    return `"${segment}" is a Windows device name (CON, PRN, AUX, NUL, COM1–9, LPT1–9), whatever the extension`;
  return null;
}

/**
 * Checks a relative rule file path such as `invoices.yml` or `finance/invoices.yml`:
 * at most one package folder, a .yml/.yaml name, no `..`, nothing absolute, at most 255 bytes.
 * Returns the parsed path, or a message saying what is wrong.
 */
export function parseRuleFilePath(raw: string): RuleFilePath | { problem: string } {
  if (typeof raw !== 'string' || raw.length === 0)
    return { problem: 'Give a file name such as "invoices.yml" or "finance/invoices.yml".' };
  if (Buffer.byteLength(raw, 'utf8') > MAX_NAME_BYTES)
    return { problem: `The file name is longer than ${MAX_NAME_BYTES} bytes.` };
  if (raw.includes('\\')) return { problem: 'Use "/" between the package folder and the file name, not "\\".' };
  if (raw.startsWith('/'))
    return { problem: 'The file name must be relative to the rules directory, not an absolute path.' };
  if (raw.normalize('NFC') !== raw) return { problem: 'The file name must be in Unicode NFC form.' };
  const segments = raw.split('/');
  if (segments.length > 2) return { problem: 'Only one package folder is allowed: "<package>/<name>.yml".' };
  const name = segments[segments.length - 1];
  const pkg = segments.length === 2 ? segments[0] : null;
  const problem =
    (pkg === null ? null : segmentProblem(pkg, 'package folder name')) ?? segmentProblem(name, 'file name');
  if (problem) return { problem: `Invalid file name "${raw}": ${problem}.` };
  if (!RULE_FILE_EXTENSIONS.some((ext) => name.toLowerCase().endsWith(ext)) || name.length <= 4) {
    return { problem: `Invalid file name "${raw}": rule files end in .yml or .yaml.` };
  }
  return { path: raw, name, package: pkg, isVars: name === VARS_FILE_NAME };
}

export function isRuleFilePath(value: ReturnType<typeof parseRuleFilePath>): value is RuleFilePath {
  return 'path' in value;
}

/** The opaque, stable id of a rule file: base64url of its relative path. */
export function fileIdOf(relativePath: string): string {
  return Buffer.from(relativePath, 'utf8').toString('base64url');
}

/**
 * Decodes an id back to a checked relative path, or null. Only canonical base64url is accepted
 * (re-encoding must give the same id), so one file never has two ids and no trick encoding slips through.
 */
export function pathOfFileId(id: string): RuleFilePath | null {
  if (typeof id !== 'string' || id.length === 0 || id.length > 400 || !/^[A-Za-z0-9_-]+$/.test(id)) return null;
  const decoded = Buffer.from(id, 'base64url');
  const text = decoded.toString('utf8');
  if (Buffer.from(text, 'utf8').toString('base64url') !== id) return null;
  const parsed = parseRuleFilePath(text);
  return isRuleFilePath(parsed) ? parsed : null;
}

/** Files load in path order: top-level files and package folders sorted together by path, byte-wise. */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
