/**
 * Templates are checked at compile time for variables that cannot exist (`{{ totl }}`), so a typo is a
 * save error with its place instead of a rule that fails on its first run. Liquid's static analysis
 * leaves out loop variables and `assign`/`capture` names, so only the template's free names are checked.
 */
import { analyzeSync } from 'liquidjs';
import { DOCUMENT_FIELDS } from './rule-schema.js';
import { RuleCompileError, type RulePath } from './errors.js';
import type { CompiledTemplate } from './templates.js';

/** What `doc.<x>` and `rule.<x>` may name; `vars.<x>` is open (a test or `default:` may supply it). */
const DOC_FIELDS = new Set<string>(['id', 'custom_fields', ...DOCUMENT_FIELDS]);
const RULE_FIELDS = new Set(['id', 'description', 'file']);

/** The names every rule template sees besides the extracted values. */
const CONTEXT_NAMES = ['doc', 'vars', 'now', 'rule'] as const;

/**
 * Throws a RuleCompileError at `path` when the template names a variable outside `doc`, `vars`, `now`,
 * `rule` and `extracted`, or a field `doc` and `rule` do not have.
 */
export function checkTemplateVariables(t: CompiledTemplate, extracted: readonly string[], path: RulePath): void {
  if (t.literal) return;
  const globals = analyzeSync(t.templates).globals;
  for (const [name, uses] of Object.entries(globals)) {
    const where = uses[0]?.location ? ` (template line ${uses[0].location.row}, column ${uses[0].location.col})` : '';
    if (!(CONTEXT_NAMES as readonly string[]).includes(name) && !extracted.includes(name)) {
      const known = [...extracted, ...CONTEXT_NAMES];
      const hint = closest(name, known);
      throw new RuleCompileError(
        path,
        `template names "${name}"${where}, which does not exist${hint ? `; did you mean "${hint}"?` : '.'} Available: ${known.join(', ')}${extracted.length ? '' : ' (this rule extracts no values here)'}`,
      );
    }
    const fields = name === 'doc' ? DOC_FIELDS : name === 'rule' ? RULE_FIELDS : name === 'now' ? new Set<string>() : null;
    if (!fields) continue;
    for (const use of uses) {
      const field = use.segments[1];
      if (typeof field !== 'string' || fields.has(field)) continue;
      const hint = closest(field, [...fields]);
      const at = use.location ? ` (template line ${use.location.row}, column ${use.location.col})` : '';
      const offer = fields.size ? `; ${name} has ${[...fields].join(', ')}` : `; ${name} is a date text (format it with | date)`;
      throw new RuleCompileError(path, `template names "${name}.${field}"${at}, which does not exist${hint ? ` (did you mean "${name}.${hint}"?)` : ''}${offer}`);
    }
  }
}

/** The candidate within two edits of `name`, for "did you mean". */
function closest(name: string, candidates: readonly string[]): string | null {
  let best: { word: string; distance: number } | null = null;
  for (const word of candidates) {
    const distance = editDistance(name.toLowerCase(), word.toLowerCase());
    if (distance <= 2 && (!best || distance < best.distance)) best = { word, distance };
  }
  return best?.word ?? null;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}
