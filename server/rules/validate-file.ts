import type { RuleDefinition } from '../engine/model.js';
import { ValidationError } from '../app-errors.js';
import { compileAt, renderVarsAt, testProblemAt, type CompiledRule, type TestContext } from './engine-stages.js';
import { ProblemList } from './file-problems.js';
import { regexProblems } from './regex-problems.js';
import { checkVarsFileSchema, ruleFileSchemaProblems } from './schema-check.js';
import { parseYamlSource, type YamlSource } from './yaml-source.js';

/**
 * The validation stages (docs/rule-files.md#validation) for one file's text, in order: YAML syntax (limits), schema,
 * compile (regexes and templates), ids unique, then — after the store's async dms-name stage — tests.
 * Each stage throws a ValidationError naming line and column; nothing here touches the disk.
 */

export const MAX_RULE_FILE_BYTES = 512 * 1024;

export interface PreparedRuleFile {
  source: YamlSource;
  definitions: RuleDefinition[];
  compiled: CompiledRule[];
}

export interface RuleFileContext {
  /** Rule id → path of the file that already holds it (other files only). */
  takenIds: ReadonlyMap<string, string>;
  /** Targets `notify` may use (from the settings), name → kind; undefined: not checked. */
  notifyTargets?: NotifyTargetKinds;
}

/** The notify targets of the settings by name: an HTTP endpoint or e-mail. */
export type NotifyTargetKinds = Readonly<Record<string, 'http' | 'email'>>;

function checkSize(text: string): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_RULE_FILE_BYTES)
    throw new ValidationError(
      `The file is ${bytes} bytes; rule files may be at most ${MAX_RULE_FILE_BYTES / 1024} KB.`,
    );
}

/** A rule file's text after the stages that need no dms: its rules and every problem those stages found. */
export interface RuleFileInspection {
  source: YamlSource;
  definitions: RuleDefinition[];
  /** One entry per rule; null where the rule broke the schema (the later stages skip it). */
  checked: Array<RuleDefinition | null>;
  /** One entry per rule; null where the rule did not compile (its problem is in `problems`). */
  compiled: Array<CompiledRule | null>;
  problems: ProblemList;
}

const ruleIndexOf = (path: ReadonlyArray<string | number>) =>
  path[0] === 'rules' && typeof path[1] === 'number' ? path[1] : null;

/**
 * Stages 1–5: YAML, schema, compile, unique ids (and notify targets). A YAML problem ends it, as does a schema
 * problem outside the rules (nothing after them can be read). A rule that breaks the schema is left out of the
 * later stages while the other rules go through them, so one look shows every problem of every rule.
 * An empty file is a valid file without rules.
 */
export function inspectRuleFile(text: string, context: RuleFileContext): RuleFileInspection {
  checkSize(text);
  const source = parseYamlSource(text);
  let value = source.value ?? { rules: [] };
  // `rules:` with nothing under it is how a new file starts; treat it as an empty list.
  if (typeof value === 'object' && !Array.isArray(value) && (value as { rules?: unknown }).rules === null)
    value = { ...value, rules: [] };
  const schema = ruleFileSchemaProblems(source, value);
  const problems = new ProblemList();
  schema.forEach(({ problem }) => problems.push(problem));
  if (schema.some((p) => ruleIndexOf(p.path) === null)) problems.throwIfAny();
  const broken = new Set(schema.map((p) => ruleIndexOf(p.path)));
  const definitions = (value as { rules: RuleDefinition[] }).rules;
  const checked = definitions.map((definition, index) => (broken.has(index) ? null : definition));
  const compiled = checked.map((definition, index) => {
    if (!definition) return null;
    regexProblems(definition, index, source).forEach((p) => problems.push(p));
    try {
      return compileAt(definition, index, source);
    } catch (err) {
      problems.addError(err);
      return null;
    }
  });

  const seen = new Set<string>();
  checked.forEach((definition, index) => {
    if (!definition) return;
    const position = source.positionOf(['rules', index, 'id']);
    const other = context.takenIds.get(definition.id);
    if (seen.has(definition.id))
      problems.add(
        position,
        `rule id "${definition.id}" is used twice in this file; ids are unique across all rule files`,
      );
    else if (other !== undefined)
      problems.add(
        position,
        `rule id "${definition.id}" is already used in ${other}; ids are unique across all rule files`,
      );
    seen.add(definition.id);
  });
  if (context.notifyTargets) checkNotifyTargets(compiled, source, context.notifyTargets, problems);
  return { source, definitions, checked, compiled, problems };
}

/** Stages 1–5 for a file that must pass them: throws one ValidationError naming every problem found. */
export function prepareRuleFile(text: string, context: RuleFileContext): PreparedRuleFile {
  const { source, definitions, compiled, problems } = inspectRuleFile(text, context);
  problems.throwIfAny();
  return { source, definitions, compiled: compiled.filter((c): c is CompiledRule => c !== null) };
}

/**
 * A rule may only name targets the settings define: addresses never come from a rule file. What a notify asks
 * of its target must fit its kind: body and headers an HTTP target, attach an e-mail target.
 */
function checkNotifyTargets(
  compiled: Array<CompiledRule | null>,
  source: YamlSource,
  targets: NotifyTargetKinds,
  problems: ProblemList,
): void {
  const known = Object.keys(targets);
  compiled.forEach((rule, index) => {
    for (const action of rule?.actions ?? []) {
      const p = action.payload;
      // A target chosen by the document (`to: "{{ doc.owner }}"`) is one of the settings' targets or fails at send.
      if (p.kind !== 'notify' || p.toTemplate) continue;
      const at = (key: string) => source.positionOf(['rules', index, ...action.path, 'notify', key]);
      const kind = targets[p.to];
      if (kind === undefined) {
        const choice = known.length
          ? `the settings define ${known.map((n) => `"${n}"`).join(', ')}`
          : 'the settings define no targets yet (notify_targets in config.yml)';
        problems.add(at('to'), `rule "${rule?.id}": there is no notify target "${p.to}"; ${choice}`);
      } else if (kind === 'email' && (p.body || p.headers.length > 0))
        problems.add(
          at(p.body ? 'body' : 'headers'),
          `rule "${rule?.id}": notify target "${p.to}" is an e-mail target; body and headers are for HTTP targets (an e-mail sends title and message)`,
        );
      else if (kind === 'http' && p.attach)
        problems.add(
          at('attach'),
          `rule "${rule?.id}": notify target "${p.to}" is an HTTP target; attach needs an e-mail target`,
        );
    }
  });
}

/** Stage 7: each rule's own `tests:` must pass; the first failing test of every rule is a problem. */
export async function collectTestProblems(
  source: YamlSource,
  compiled: Array<CompiledRule | null>,
  context: TestContext,
  problems: ProblemList,
): Promise<void> {
  for (const [index, rule] of compiled.entries()) {
    if (!rule) continue;
    const problem = await testProblemAt(rule, index, source, context);
    if (problem) problems.push(problem);
  }
}

/** Stage 7 for a prepared file: throws one ValidationError naming each rule whose tests fail. */
export async function checkRuleFileTests(prepared: PreparedRuleFile, context: TestContext): Promise<void> {
  const problems = new ProblemList();
  await collectTestProblems(prepared.source, prepared.compiled, context, problems);
  problems.throwIfAny();
}

/** What one `_vars.yml` may expand to, in characters of JSON. */
export const MAX_RENDERED_VARS_CHARS = 1_000_000;

export interface VarsContext {
  now: Date;
  env: Record<string, string>;
  /** The global vars a package's `_vars.yml` overrides (empty for the global file). */
  inherited: Record<string, unknown>;
}

export interface RenderedVars {
  /** Inherited vars with this file's over them: what the rules see. */
  vars: Record<string, unknown>;
  /** Only the keys this file defines, rendered (the preview). */
  own: Record<string, unknown>;
}

/** A `_vars.yml`: YAML, schema (a mapping), then its templates rendered (docs/rule-files.md#validation). */
export function renderVarsFile(text: string, context: VarsContext): RenderedVars {
  checkSize(text);
  const source = parseYamlSource(text);
  checkVarsFileSchema(source, source.value);
  const defined = (source.value ?? {}) as Record<string, unknown>;
  const vars = renderVarsAt(defined, source, context);
  const own = Object.fromEntries(Object.keys(defined).map((key) => [key, vars[key]]));
  // Anchors and aliases multiply a small file: bound what it expands to, for the preview and the rules alike.
  const size = JSON.stringify(own).length;
  if (size > MAX_RENDERED_VARS_CHARS) {
    throw new ValidationError(
      `The vars expand to ${size} characters (anchors and aliases included), more than the limit of ${MAX_RENDERED_VARS_CHARS}; use fewer aliases or smaller values.`,
    );
  }
  return { vars, own };
}
